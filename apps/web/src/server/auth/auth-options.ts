import type { ProjectAuthConfig } from '@interlock/sdk-types';
import type { WebAuthOptions } from '../create-web-server.js';

/**
 * `[auth]` of the project file as `createWebServer({ auth })` takes it: the secrets read from
 * the variables the file names. A variable the file names that is not set stops the start
 * (naming the variable, never a value): a missing client secret never falls back to a public client.
 *
 * @throws Error naming the key and the variable.
 */
export function authOptionsFrom(
  config: ProjectAuthConfig | undefined,
  environment: Readonly<Record<string, string | undefined>>,
): WebAuthOptions {
  if (config === undefined) return {};
  const secretOf = (key: string, name: string | undefined): string | undefined => {
    if (name === undefined) return undefined;
    const value = environment[name];
    if (value === undefined || value === '')
      throw new Error(`[auth] ${key} names ${name}, which is not set: set it, or remove ${key}`);
    return value;
  };
  const sessionSecret = secretOf('sessionSecretEnv', config.sessionSecretEnv);
  const oidc = config.oidc;
  const clientSecret = secretOf('oidc.clientSecretEnv', oidc?.clientSecretEnv);
  return {
    ...(config.sessionLifetime === undefined ? {} : { sessionLifetimeMs: config.sessionLifetime }),
    ...(sessionSecret === undefined ? {} : { sessionSecret }),
    ...(oidc === undefined
      ? {}
      : {
          oidc: {
            issuer: oidc.issuer,
            clientId: oidc.clientId,
            allowed: oidc.allowed,
            ...(clientSecret === undefined ? {} : { clientSecret }),
            ...(oidc.scopes === undefined ? {} : { scopes: oidc.scopes }),
            ...(oidc.approverClaim === undefined ? {} : { approverClaim: oidc.approverClaim }),
            ...(oidc.groupsClaim === undefined ? {} : { groupsClaim: oidc.groupsClaim }),
            ...(oidc.recheckEvery === undefined ? {} : { recheckEveryMs: oidc.recheckEvery }),
            ...(oidc.redirectUrl === undefined ? {} : { redirectUrl: oidc.redirectUrl }),
            ...(oidc.label === undefined ? {} : { label: oidc.label }),
          },
        }),
  };
}
