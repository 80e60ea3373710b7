import { z } from 'zod';
import { Duration } from '../workflow/duration.js';

/** The name of an environment variable (the config names where a secret is, never the secret). */
export const EnvName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name, in capitals (OPENAI_API_KEY)');

/**
 * Who an approver list names: a person (the approver's name: a token approver's name, or the
 * value of the identity provider's approver claim) or `group:<name>` (everyone whose groups
 * claim, or approvers-file entry, holds that group).
 */
export const ApproverName = z.string().min(1).max(200);

/** The levels an approver list can be given for: tool approvals by risk, and questions. */
export const ApproverLevel = z.enum(['LOW', 'MEDIUM', 'HIGH', 'QUESTION']);
export type ApproverLevel = z.infer<typeof ApproverLevel>;

/**
 * Who may answer a workflow (F51): one list for every level, or a list per level (`LOW`,
 * `MEDIUM`, `HIGH` risk calls, `QUESTION`s) with `default` for the levels not named. A level
 * with no list and no `default` is answered by nobody (fail closed). Whoever is on any of a
 * workflow's lists may see its threads, start and cancel them.
 */
export const WorkflowApproverRule = z.union([
  z.array(ApproverName),
  z
    .strictObject({
      LOW: z.array(ApproverName).optional(),
      MEDIUM: z.array(ApproverName).optional(),
      HIGH: z.array(ApproverName).optional(),
      QUESTION: z.array(ApproverName).optional(),
      default: z.array(ApproverName).optional(),
    })
    .refine((rule) => Object.keys(rule).length > 0, 'name at least one level (LOW, MEDIUM, HIGH, QUESTION, default)'),
]);
export type WorkflowApproverRule = z.infer<typeof WorkflowApproverRule>;

/** A claim name of the ID token or userinfo (`email`, `preferred_username`, `groups`, `https://example.com/roles`). */
const ClaimName = z.string().min(1).max(200);

/**
 * `[auth.oidc]`: approvers sign in with the organisation's identity provider (F58): the
 * authorization code flow with PKCE. The client secret is named by its environment variable.
 */
export const ProjectOidcConfig = z.strictObject({
  /** The issuer's URL (its discovery document is `<issuer>/.well-known/openid-configuration`); https, or http on a loopback address. */
  issuer: z.url(),
  clientId: z.string().min(1),
  /** The variable holding the client secret. Without it the client is public (PKCE only, `token_endpoint_auth_method` none). */
  clientSecretEnv: EnvName.optional(),
  /** Default `["openid", "email", "profile"]`; must hold `openid`. Add `offline_access` where the provider gives refresh tokens only then. */
  scopes: z
    .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope token'))
    .refine((scopes) => scopes.includes('openid'), 'the scopes must include "openid"')
    .optional(),
  /** The claim that names the approver (as approver lists and the audit trail name them). Default `email`. */
  approverClaim: ClaimName.optional(),
  /** The claim holding the person's groups (a list of strings). Default `groups`. */
  groupsClaim: ClaimName.optional(),
  /** Who may sign in at all: approver names and `group:<name>`. Anyone else is refused. */
  allowed: z.array(ApproverName).min(1, 'name who may sign in (a group, "group:<name>", or people)'),
  /** How often a signed-in person's claims are read again from the provider (refresh token, or userinfo). Default 1m; 0 at every request. */
  recheckEvery: Duration.optional(),
  /**
   * Where the provider sends the browser back: `<this server's URL>/api/auth/callback`.
   * Required off loopback; without it, only a request to this machine's loopback address
   * (`localhost`, `127.0.0.1`, `[::1]`) gets a link, built from that address.
   */
  redirectUrl: z.url().optional(),
  /** The sign-in button's text. Default "Sign in with single sign-on". */
  label: z.string().min(1).max(100).optional(),
});
export type ProjectOidcConfig = z.infer<typeof ProjectOidcConfig>;

/** `[auth]`: how people sign in to the web app, and their sessions. */
export const ProjectAuthConfig = z.strictObject({
  /** How long a browser session lasts. Default 12h. */
  sessionLifetime: Duration.refine((ms) => ms >= 60_000, 'a session lasts at least 1m').optional(),
  /**
   * The variable holding the key that signs session cookies (at least 32 characters). Without
   * it a random key is made once and kept in the store, shared by every server on it.
   */
  sessionSecretEnv: EnvName.optional(),
  oidc: ProjectOidcConfig.optional(),
});
export type ProjectAuthConfig = z.infer<typeof ProjectAuthConfig>;
