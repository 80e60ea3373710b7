import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshot } from './browser.js';
import { authorizeByHttp } from './oidc/sign-in-by-http.js';
import { startIdentityProvider, type TestIdentityProvider } from './oidc/test-identity-provider.js';
import { eventually, manualClock, startHarness, type ManualClock, type WebHarness } from './web-harness.js';

/*
 * Approvers sign in with the organisation's identity provider (F58): a real OpenID provider
 * (oidc-provider, certified) on 127.0.0.1, the web app's relying party on openid-client, and
 * Debian's Chromium clicking through the provider's login and consent pages. The approver
 * lists name groups from the provider's claims (F51).
 */

let browser: Browser;
let provider: TestIdentityProvider;
let harness: WebHarness;
let clock: ManualClock;
const log = new PassThrough();
let logText = '';
log.on('data', (chunk: Buffer) => (logText += chunk.toString('utf8')));
/** Every URL the provider sent a browser back to (the codes in them must never reach the log). */
const callbacks: string[] = [];

beforeAll(async () => {
  clock = manualClock();
  [browser, provider] = await Promise.all([launchChromium(), startIdentityProvider()]);
  provider.accounts.set('alice', { email: 'alice@example.com', groups: ['approvers', 'release-managers'] });
  provider.accounts.set('bob', { email: 'bob@example.com', groups: ['approvers', 'release-managers'] });
  provider.accounts.set('carol', { email: 'carol@example.com', groups: ['contractors'] });
  provider.accounts.set('dave', { email: 'dave@example.com', groups: ['approvers'] });
  provider.accounts.set('erin', { email: 'erin@example.com', groups: ['approvers'] });
  harness = await startHarness({
    approvers: ['ci'],
    clock,
    logStream: log,
    // Every sign-in of this file comes from 127.0.0.1.
    rateLimits: { signInPerMinute: 100 },
    workflowApprovers: { 'release-agent': { HIGH: ['group:release-managers'], default: ['group:approvers'] } },
    // A HIGH call runs only after two different approvers approved it (F51).
    approval: { quorum: { required: 2, minRisk: 'HIGH' } },
    auth: {
      oidc: {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        scopes: ['openid', 'email', 'groups'],
        allowed: ['group:approvers'],
        label: 'Sign in with Example SSO',
      },
    },
  });
  provider.start(`${harness.baseUrl}/api/auth/callback`);
});
afterAll(async () => {
  await browser?.close();
  await harness?.close();
  await provider?.close();
});

/** A browser of its own (cookies, and no session at the provider), that reaches only this machine. */
async function freshBrowser(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  // The provider's login page imports a web font: nothing leaves 127.0.0.1.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  const page = await context.newPage();
  page.on('request', (request) => {
    if (request.url().includes('/api/auth/callback')) callbacks.push(request.url());
  });
  return { context, page };
}

/** Opens the page, follows "Sign in with Example SSO", logs in at the provider as `login` and consents; ends back at the web app. */
async function signInThroughProvider(page: Page, login: string): Promise<void> {
  await page.goto(`${harness.baseUrl}/`);
  await page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.href.startsWith(harness.baseUrl));
  await page.waitForLoadState();
}

/** What the page's own session call answers (the signed, HttpOnly cookie goes with it). */
function sessionOf(
  page: Page,
): Promise<{ status: number; body: { approver?: string; groups?: string[]; message?: string } }> {
  return page.evaluate(async () => {
    const response = await fetch('/api/session');
    return { status: response.status, body: (await response.json()) as Record<string, never> };
  });
}

const card = (page: Page, interactionId: string) => page.locator(`.cards [data-interaction-id="${interactionId}"]`);

describe('sign-in with the identity provider (F58)', () => {
  it('signs two approvers of the HIGH list in through the provider; the HIGH call runs only after both approved it', async () => {
    const { threadId, approvals } = await harness.startReleaseAgent();
    const alice = await freshBrowser();
    await signInThroughProvider(alice.page, 'alice');
    await alice.page.locator('.live.on').waitFor();
    await expect(alice.page.locator('.whoami').textContent()).resolves.toContain('Signed in as alice@example.com');
    expect((await sessionOf(alice.page)).body).toMatchObject({
      approver: 'alice@example.com',
      groups: ['approvers', 'release-managers'],
    });
    const bob = await freshBrowser();
    await signInThroughProvider(bob.page, 'bob');
    await bob.page.locator('.live.on').waitFor();

    const [write, deploy] = [approvals[0]!, approvals[1]!];
    expect([write.toolApproval?.riskLevel, deploy.toolApproval?.riskLevel]).toEqual(['MEDIUM', 'HIGH']);
    // The MEDIUM call needs one approval, as before.
    await card(alice.page, write.interactionId).getByRole('button', { name: 'Approve', exact: true }).click();
    await card(alice.page, deploy.interactionId).getByRole('button', { name: 'Approve', exact: true }).click();
    // One approval of two: the call waits, and bob's inbox says so.
    await card(bob.page, deploy.interactionId).locator('.quorum').filter({ hasText: '1 of 2 approvals' }).waitFor();
    expect((await harness.store.getInteraction(deploy.interactionId))?.status).toBe('pending');
    expect(await harness.store.listToolExecutions({ threadId })).not.toContainEqual(
      expect.objectContaining({ toolName: 'bash', status: 'finished' }),
    );
    await card(bob.page, deploy.interactionId).getByRole('button', { name: 'Approve', exact: true }).click();
    const answered = await eventually(async () => {
      const record = await harness.store.getInteraction(deploy.interactionId);
      return record?.response !== undefined ? record : undefined;
    });
    expect(answered.response?.responder).toBe('web:bob@example.com');
    const ran = await eventually(async () => {
      const calls = await harness.store.listToolExecutions({ threadId });
      const bash = calls.filter((call) => call.toolName === 'bash' && call.status === 'finished');
      return bash.length > 0 ? bash : undefined;
    });
    expect(ran).toHaveLength(1);
    await screenshot(alice.page, 'oidc-signed-in');
    // Sign-out ends the session in the store: a copy of its cookie opens nothing afterwards.
    const cookie = (await alice.context.cookies()).find((candidate) => candidate.name === 'interlock_session');
    expect(cookie?.httpOnly).toBe(true);
    await alice.page.getByRole('button', { name: 'Sign out' }).click();
    await alice.page.getByRole('link', { name: 'Sign in with Example SSO' }).waitFor();
    const copied = await fetch(`${harness.baseUrl}/api/session`, {
      headers: { cookie: `interlock_session=${cookie?.value ?? ''}` },
    });
    expect(copied.status).toBe(401);
    await Promise.all([alice.context.close(), bob.context.close()]);
  });

  it('refuses a person outside the group that may sign in, with no session', async () => {
    const carol = await freshBrowser();
    await signInThroughProvider(carol.page, 'carol');
    await expect(carol.page.locator('[role="alert"]').textContent()).resolves.toContain(
      'carol@example.com is not allowed to sign in here',
    );
    await expect(carol.page.locator('[data-code]').getAttribute('data-code')).resolves.toBe('NOT_AN_APPROVER');
    expect((await sessionOf(carol.page)).status).toBe(401);
    await carol.context.close();
  });

  it('ends the session of a person removed from the group at their next request once the re-check is due', async () => {
    const dave = await freshBrowser();
    await signInThroughProvider(dave.page, 'dave');
    await dave.page.locator('.live.on').waitFor();
    provider.accounts.set('dave', { email: 'dave@example.com', groups: [] });
    // Within the re-check interval the session stands on what the provider said a moment ago…
    expect((await sessionOf(dave.page)).status).toBe(200);
    // …and the first request after it asks the provider again, which no longer lists dave.
    clock.advance(61_000);
    const ended = await sessionOf(dave.page);
    expect(ended.status).toBe(401);
    expect(ended.body.message).toContain('your sign-in ended');
    // Ended in the store: no later request, here or on another server, brings it back.
    expect((await sessionOf(dave.page)).status).toBe(401);
    await dave.page.reload();
    await dave.page.getByRole('link', { name: 'Sign in with Example SSO' }).waitFor();
    await dave.context.close();
  });

  it.each([
    ['forged', 'signed with a key the provider never published'],
    ['expired', 'that ran out an hour ago'],
  ] as const)('refuses an ID token that was %s (one %s)', async (tampering, _how) => {
    provider.tamper(tampering);
    try {
      const erin = await freshBrowser();
      await signInThroughProvider(erin.page, 'erin');
      await expect(erin.page.locator('[data-code]').getAttribute('data-code')).resolves.toBe('SIGN_IN_FAILED');
      expect((await sessionOf(erin.page)).status).toBe(401);
      await erin.context.close();
    } finally {
      provider.tamper(undefined);
    }
  });

  it('refuses a callback with a wrong state, and a code used once already', async () => {
    const erin = await freshBrowser();
    await signInThroughProvider(erin.page, 'erin');
    await erin.page.locator('.live.on').waitFor();
    const used = new URL(callbacks.at(-1) ?? '');
    expect(used.searchParams.get('code')).not.toBeNull();
    // The same callback again, in the same browser: its sign-in is over.
    await erin.page.goto(used.href);
    await expect(erin.page.locator('[data-code]').getAttribute('data-code')).resolves.toBe('SIGN_IN_FAILED');
    await expect(erin.page.locator('[role="alert"]').textContent()).resolves.toContain('no sign-in is under way');
    await erin.context.close();

    // (By HTTP from here: a browser sends back what the provider redirects it to, unchanged.)
    const callbackWith = async (callback: URL, cookie: string) => {
      const response = await fetch(callback, { redirect: 'manual', headers: { cookie } });
      return { status: response.status, text: await response.text(), session: response.headers.getSetCookie() };
    };
    // The provider's answer with another state than this sign-in sent.
    const wrong = await authorizeByHttp(harness.baseUrl, 'erin');
    wrong.callback.searchParams.set('state', 'a-state-this-browser-never-sent');
    const wrongState = await callbackWith(wrong.callback, wrong.signInCookie);
    expect(wrongState.status).toBe(401);
    expect(wrongState.text).toContain('data-code="SIGN_IN_FAILED"');
    expect(wrongState.session.join()).not.toContain('interlock_session=');

    // A code the provider gave once, sent again with the sign-in it belonged to (a copied
    // request), and with a new sign-in's state: the provider refuses it both times.
    const first = await authorizeByHttp(harness.baseUrl, 'erin');
    expect((await callbackWith(first.callback, first.signInCookie)).status).toBe(303);
    const replayed = await callbackWith(first.callback, first.signInCookie);
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('invalid_grant');
    const fresh = await authorizeByHttp(harness.baseUrl, 'erin');
    fresh.callback.searchParams.set('code', first.callback.searchParams.get('code') ?? '');
    const swapped = await callbackWith(fresh.callback, fresh.signInCookie);
    expect(swapped.status).toBe(401);
    expect(swapped.text).toContain('invalid_grant');
    expect(swapped.session.join()).not.toContain('interlock_session=');
    for (const attempt of [wrong, first, fresh]) callbacks.push(attempt.callback.href);
  });

  it('logs who signed in and why a sign-in was refused, never a code, a token or a secret', () => {
    expect(logText).toContain('sign-in: alice@example.com signed in through the identity provider');
    expect(logText).toContain('not allowed to sign in');
    expect(logText).toContain('the session of dave@example.com ended');
    const codes = callbacks.map((url) => new URL(url).searchParams.get('code')).filter((code) => code !== null);
    expect(codes.length).toBeGreaterThan(3);
    for (const code of codes) expect(logText).not.toContain(code);
    expect(logText).not.toContain(provider.clientSecret);
    // No JSON Web Token (ID or access token) in any line.
    expect(logText).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
  });
});
