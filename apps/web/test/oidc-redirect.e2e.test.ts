import { request as httpRequest } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { watch } from './deployment/deployment-harness.js';
import { startIdentityProvider, type TestIdentityProvider } from './oidc/test-identity-provider.js';
import { startHarness, type WebHarness } from './web-harness.js';
import { spawnProcessGroup } from '@interlock/core/testing';

/*
 * Where the identity provider sends the browser back (F58): the `redirect_uri` of the
 * sign-in link is `[auth.oidc] redirectUrl`, or — only on this machine's loopback — the
 * request's own address. A `Host` header naming anything else is the client's or a proxy's
 * choice, and no link is built from it; `interlock-web` on a non-loopback address does not
 * start without `redirectUrl`.
 */

const WEB_MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

let provider: TestIdentityProvider;
let dir: string;
const harnesses: WebHarness[] = [];
beforeAll(async () => {
  provider = await startIdentityProvider();
  provider.start('https://interlock.example.com/api/auth/callback');
  dir = await mkdtemp(join(tmpdir(), 'interlock-oidc-redirect-'));
});
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});
afterAll(async () => {
  await provider.close();
  await rm(dir, { recursive: true, force: true });
});

async function serverWith(redirectUrl?: string): Promise<WebHarness> {
  const harness = await startHarness({
    auth: {
      oidc: {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        allowed: ['group:approvers'],
        ...(redirectUrl === undefined ? {} : { redirectUrl }),
      },
    },
  });
  harnesses.push(harness);
  return harness;
}

/** `GET /api/auth/login` with the `Host` header `host` (fetch may not set it): the status, where it sends the browser, and the page. */
function logIn(baseUrl: string, host: string): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${baseUrl}/api/auth/login`, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, location: response.headers.location, body }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

const redirectUriOf = (location: string | undefined) =>
  location === undefined ? undefined : new URL(location).searchParams.get('redirect_uri');

describe('the sign-in link’s redirect_uri (F58)', () => {
  it('is built from the request only when it names this machine’s loopback; another Host is refused, not linked', async () => {
    const { baseUrl } = await serverWith();
    const port = new URL(baseUrl).port;

    const local = await logIn(baseUrl, `localhost:${port}`);
    const forged = await logIn(baseUrl, 'interlock.attacker.example');
    const lookalike = await logIn(baseUrl, `127.0.0.1.attacker.example:${port}`);

    expect(local.status).toBe(303);
    expect(redirectUriOf(local.location)).toBe(`http://localhost:${port}/api/auth/callback`);
    for (const refused of [forged, lookalike]) {
      expect(refused.status).toBe(503);
      expect(refused.location).toBeUndefined();
      expect(refused.body).toContain('SIGN_IN_UNAVAILABLE');
      expect(refused.body).toContain('redirectUrl');
      expect(refused.body).not.toContain('attacker');
    }
  });

  it('is the configured redirectUrl whatever Host the request names', async () => {
    const { baseUrl } = await serverWith('https://interlock.example.com/api/auth/callback');

    const forged = await logIn(baseUrl, 'interlock.attacker.example');

    expect(forged.status).toBe(303);
    expect(new URL(forged.location ?? '').origin).toBe(provider.issuer);
    expect(redirectUriOf(forged.location)).toBe('https://interlock.example.com/api/auth/callback');
  });

  it('keeps interlock-web from starting on an address that is not loopback without redirectUrl', async () => {
    const config = join(dir, 'interlock.toml');
    await writeFile(
      config,
      `[auth.oidc]\nissuer = "${provider.issuer}"\nclientId = "interlock"\nallowed = ["group:approvers"]\n`,
    );
    const web = watch(
      spawnProcessGroup(
        process.execPath,
        [
          WEB_MAIN,
          '--store',
          `sqlite:${join(dir, 'interlock.db')}`,
          '--approvers',
          join(dir, 'approvers.json'),
          '--host',
          '0.0.0.0',
          '--port',
          '0',
          '--config',
          config,
        ],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INTERLOCK_STORE: '' } },
      ),
    );

    const exited = await web.exit;

    expect(exited.code).toBe(1);
    expect(exited.stderr).toContain('[auth.oidc] needs redirectUrl');
    expect(exited.stdout).not.toContain('Interlock web inbox');
  });
});
