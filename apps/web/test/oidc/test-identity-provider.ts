import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** A person the provider knows: their email and groups, changed by the test as an administrator would. */
export interface TestAccount {
  email: string;
  groups: string[];
}

/** How the next token responses' ID tokens are spoiled, as an attacker or a broken provider would. */
export type Tampering = 'forged' | 'expired' | undefined;

/** A certified OpenID provider (oidc-provider) on 127.0.0.1, with its login and consent pages. */
export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** login → account; `delete` one to remove the person, edit `groups` to move them. */
  accounts: Map<string, TestAccount>;
  /** Registers the web app's callback and starts answering (the issuer URL is known before). */
  start(redirectUri: string): void;
  tamper(mode: Tampering): void;
  close(): Promise<void>;
}

const CLIENT_SECRET = 'the-test-client-secret-0123456789abcdef';

export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server = createServer((request, response) => {
    if (handle === undefined) {
      response.writeHead(503).end();
      return;
    }
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const issuer = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const signing = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(signing.privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  // A key the provider never published, under the provider's key id.
  const foreign = await generateKeyPair('RS256');
  const accounts = new Map<string, TestAccount>();
  let tampering: Tampering;
  return {
    issuer,
    clientId: 'interlock',
    clientSecret: CLIENT_SECRET,
    accounts,
    tamper: (mode) => {
      tampering = mode;
    },
    start(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: 'interlock',
            client_secret: CLIENT_SECRET,
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_post',
          },
        ],
        jwks: { keys: [jwk] },
        cookies: { keys: ['the-test-provider-cookie-key'] },
        claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
        scopes: ['openid', 'email', 'groups', 'offline_access'],
        // Every claim of the granted scopes in the ID token too, as many providers put groups there.
        conformIdTokenClaims: false,
        issueRefreshToken: async (_context, client) => client.grantTypeAllowed('refresh_token'),
        features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
        findAccount: async (_context, id) => {
          if (!accounts.has(id)) return undefined;
          return {
            accountId: id,
            claims: async () => {
              const account = accounts.get(id);
              return account === undefined
                ? { sub: id }
                : { sub: id, email: account.email, email_verified: true, groups: [...account.groups] };
            },
          };
        },
      });
      provider.use(async (context, next) => {
        await next();
        const body = context.body as { id_token?: unknown } | undefined;
        if (context.path !== '/token' || tampering === undefined || typeof body?.id_token !== 'string') return;
        const claims = decodeJwt(body.id_token);
        const now = Math.floor(Date.now() / 1000);
        const spoiled = tampering === 'expired' ? { ...claims, iat: now - 7_200, exp: now - 3_600 } : claims;
        const key = tampering === 'forged' ? foreign.privateKey : await importJWK(jwk, 'RS256');
        body.id_token = await new SignJWT(spoiled).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(key);
      });
      handle = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
