import { describe, expect, it } from 'vitest';
import { ProjectConfig } from './project-config.js';

const oidc = { issuer: 'https://login.example.com', clientId: 'interlock', allowed: ['group:approvers'] };

describe('[auth] and per-risk approver lists in the project file (F51, F58)', () => {
  it('reads a workflow list for every level, and lists per level with a default', () => {
    const parsed = ProjectConfig.parse({
      approvers: {
        workflows: {
          'release-agent': ['alice', 'group:sre'],
          deploy: { HIGH: ['group:release-managers'], default: ['group:sre'] },
        },
      },
    });
    expect(parsed.approvers?.workflows?.['deploy']).toEqual({
      HIGH: ['group:release-managers'],
      default: ['group:sre'],
    });
  });

  it('refuses a per-level list with an unknown level or no level at all', () => {
    expect(ProjectConfig.safeParse({ approvers: { workflows: { deploy: { CRITICAL: ['a'] } } } }).success).toBe(false);
    expect(ProjectConfig.safeParse({ approvers: { workflows: { deploy: {} } } }).success).toBe(false);
  });

  it('reads [auth.oidc] with durations, and names the secret by its variable only', () => {
    const parsed = ProjectConfig.parse({
      auth: { sessionLifetime: '8h', oidc: { ...oidc, clientSecretEnv: 'OIDC_SECRET', recheckEvery: '30s' } },
    });
    expect(parsed.auth?.sessionLifetime).toBe(8 * 3_600_000);
    expect(parsed.auth?.oidc?.recheckEvery).toBe(30_000);
    expect(ProjectConfig.safeParse({ auth: { oidc: { ...oidc, clientSecret: 'x' } } }).success).toBe(false);
  });

  it('refuses scopes without openid, and a sign-in open to nobody', () => {
    expect(ProjectConfig.safeParse({ auth: { oidc: { ...oidc, scopes: ['email'] } } }).success).toBe(false);
    expect(ProjectConfig.safeParse({ auth: { oidc: { ...oidc, allowed: [] } } }).success).toBe(false);
  });
});
