import { describe, expect, it } from 'vitest';
import { authOptionsFrom } from './auth-options.js';

const oidc = { issuer: 'https://login.example.com', clientId: 'interlock', allowed: ['group:approvers'] };

describe('[auth] of the project file as the web server takes it (F58)', () => {
  it('reads the client secret and the session key from the variables the file names', () => {
    const options = authOptionsFrom(
      { sessionSecretEnv: 'SESSION_KEY', oidc: { ...oidc, clientSecretEnv: 'OIDC_SECRET', recheckEvery: 30_000 } },
      { SESSION_KEY: 'k'.repeat(40), OIDC_SECRET: 'the-secret' },
    );
    expect(options).toMatchObject({
      sessionSecret: 'k'.repeat(40),
      oidc: { clientSecret: 'the-secret', recheckEveryMs: 30_000, allowed: ['group:approvers'] },
    });
  });

  it('stops the start when a variable the file names is not set, naming it and no value', () => {
    expect(() => authOptionsFrom({ oidc: { ...oidc, clientSecretEnv: 'OIDC_SECRET' } }, {})).toThrow(
      '[auth] oidc.clientSecretEnv names OIDC_SECRET, which is not set',
    );
  });

  it('gives a public client (PKCE only) when no secret is named', () => {
    expect(authOptionsFrom({ oidc }, {}).oidc).not.toHaveProperty('clientSecret');
  });
});
