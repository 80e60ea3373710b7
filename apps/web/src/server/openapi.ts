import {
  auditQuery,
  batchApproveBody,
  chatMessageBody,
  cancelThreadBody,
  errorBody,
  pendingQuery,
  respondBody,
  signInBody,
  startThreadBody,
  threadsQuery,
} from './api-schemas.js';

type Method = 'get' | 'post' | 'delete';

interface Operation {
  summary: string;
  description?: string;
  query?: { properties: Record<string, unknown> };
  body?: Record<string, unknown>;
  /** Status code → description; every error response carries {@link errorBody}. */
  responses: Record<string, string>;
  public?: boolean;
}

const AUTH_ERRORS = { '401': 'UNAUTHENTICATED: sign in first.' };
const STATE_ERRORS = {
  ...AUTH_ERRORS,
  '400': 'BAD_REQUEST: the body does not have the documented shape.',
  '403':
    "CSRF_REJECTED (missing X-CSRF-Token or another origin) or NOT_AN_APPROVER (not on the workflow's approver list).",
  '413': 'BODY_TOO_LARGE.',
};

/** Every route of the API. A test checks that it names exactly the registered routes. */
export const API_OPERATIONS: Record<string, Partial<Record<Method, Operation>>> = {
  '/api/openapi.json': {
    get: { summary: 'This document.', public: true, responses: { '200': 'The OpenAPI 3.1 document.' } },
  },
  '/api/auth/methods': {
    get: {
      summary: 'How people sign in here: tokens, and single sign-on when it is configured.',
      public: true,
      responses: { '200': '{ token: true, oidc?: { loginUrl, label } }' },
    },
  },
  '/api/session': {
    post: {
      summary: 'Sign in: exchange a token for an HttpOnly session cookie.',
      description: 'Returns the CSRF token the page must send in X-CSRF-Token on every state change.',
      body: signInBody,
      public: true,
      responses: {
        '200': '{ approver, csrfToken } and a Set-Cookie.',
        '400': 'BAD_REQUEST.',
        '401': "UNAUTHENTICATED: not an approver's token.",
      },
    },
    get: {
      summary: "Who is signed in, and the session's CSRF token.",
      responses: {
        '200': '{ approver, groups, csrfToken? }',
        ...AUTH_ERRORS,
        '503': 'SIGN_IN_UNAVAILABLE: the identity provider could not confirm the session; try again.',
      },
    },
    delete: { summary: 'Sign out.', responses: { '200': '{ signedOut: true }', ...STATE_ERRORS } },
  },
  '/api/events': {
    get: {
      summary: 'Live updates (Server-Sent Events).',
      description:
        'One `change` event per change: `{ kind: interaction|thread|chat, reason, threadId?, interactionId?, responder?, chatId? }`. Refetch what you show.',
      responses: { '200': 'text/event-stream', ...AUTH_ERRORS },
    },
  },
  '/api/interactions': {
    get: {
      summary: 'Pending interactions of every thread, oldest first.',
      query: pendingQuery,
      responses: {
        '200': '{ serverTime, interactions: [UserInteractionRequest & { mayAnswer, mayApprove, why? }] }',
        ...AUTH_ERRORS,
      },
    },
  },
  '/api/interactions/{interactionId}': {
    get: {
      summary: 'One interaction: its request, status, answer or failure.',
      responses: {
        '200': '{ request, status, response?, failureReason?, failureMessage? }',
        '404': 'INTERACTION_NOT_FOUND.',
        ...AUTH_ERRORS,
      },
    },
  },
  '/api/interactions/{interactionId}/respond': {
    post: {
      summary:
        'Answer an interaction: approve, edit, reject (each with an optional instruction), or answer a question.',
      description:
        'The first answer wins. The responder is recorded as `web:<approver>` in the store and the audit trail.',
      body: respondBody,
      responses: {
        '200':
          '{ result: "accepted", interactionId, threadId, continuation: "continued" | "scheduled" | "elsewhere" | "stalled" | "finished" | "awaiting-approvals", continued, repeated?, served?, approvals?, error?, message }: the answer is stored; continuation and message say what became of the thread. `approvals: { given, required }` when the call needs several approvers and waits for the rest (F51).',
        ...STATE_ERRORS,
        '403': `${STATE_ERRORS['403']} SEPARATION_OF_DUTIES: the requester answering a level the approvers file separates. APPROVAL_NOT_ALLOWED: the requester approving a call that needs several approvers, or an escalation approver before the escalation (F51).`,
        '404': 'INTERACTION_NOT_FOUND.',
        '409':
          'INTERACTION_ALREADY_ANSWERED: somebody answered first (details.answeredBy), or the thread was cancelled; WORKFLOW_VERSION_MISMATCH or WORKFLOW_CHANGED: not stored, the thread cannot go on here.',
        '410': 'INTERACTION_EXPIRED: the deadline passed; nothing ran.',
        '422':
          "INTERACTION_INVALID_RESPONSE: e.g. edited arguments that do not match the tool's schema or that the rules deny; still pending.",
        '503':
          'STORE_UNAVAILABLE: not stored, send it again; STORE_OUTCOME_UNKNOWN: the commit was cut off, reload and send it again if it still waits.',
      },
    },
  },
  '/api/interactions/approve-batch': {
    post: {
      summary: 'Approve several interactions (the calls of one model turn) at once.',
      body: batchApproveBody,
      responses: {
        '200': '{ results: [{ result: "accepted", … } | { result: "refused", interactionId, code, message }] }',
        ...STATE_ERRORS,
      },
    },
  },
  '/api/workflows': {
    get: {
      summary: 'Workflows that can be started here.',
      responses: { '200': '{ workflows: [{ id, name, version, description? }] }', ...AUTH_ERRORS },
    },
  },
  '/api/threads': {
    get: {
      summary: 'Threads, newest first.',
      query: threadsQuery,
      responses: { '200': '{ threads: [ThreadSummary] }', ...AUTH_ERRORS },
    },
    post: {
      summary: 'Start a workflow.',
      body: startThreadBody,
      responses: { '201': '{ threadId }', ...STATE_ERRORS, '404': 'WORKFLOW_NOT_FOUND.' },
    },
  },
  '/api/threads/{threadId}': {
    get: {
      summary: "A thread's timeline: events, questions, decisions and who made them, tool calls, the conversation.",
      responses: {
        '200': '{ thread, entries: [{ at, kind, title, actor?, interactionId?, toolCallId?, detail? }], conversation }',
        '404': 'THREAD_NOT_FOUND.',
        ...AUTH_ERRORS,
      },
    },
  },
  '/api/threads/{threadId}/cancel': {
    post: {
      summary: 'Cancel a thread; its pending interactions fail as cancelled.',
      body: cancelThreadBody,
      responses: {
        '200': '{ threadId, status }',
        ...STATE_ERRORS,
        '404': 'THREAD_NOT_FOUND.',
        '409': 'THREAD_NOT_WAITING: it already ended.',
      },
    },
  },
  '/api/audit': {
    get: {
      summary: 'The audit trail of tool-call decisions.',
      query: auditQuery,
      responses: { '200': '{ entries: [AuditEntry] }', ...AUTH_ERRORS },
    },
  },
  '/api/audit/verify': {
    get: {
      summary: "Check the audit trail's hash chain.",
      responses: { '200': '{ valid: true, entries } | { valid: false, brokenAt, reason }', ...AUTH_ERRORS },
    },
  },
};

/** The chat routes, registered when the server is given a chat channel. */
/** The routes of sign-in with the identity provider (F58), when `[auth.oidc]` is configured. */
export const OIDC_OPERATIONS: Record<string, Partial<Record<Method, Operation>>> = {
  '/api/auth/login': {
    get: {
      summary: 'Sign in with the identity provider: a redirect to it (authorization code flow with PKCE).',
      public: true,
      responses: { '303': 'To the provider.', '503': 'SIGN_IN_UNAVAILABLE: the provider could not be reached.' },
    },
  },
  '/api/auth/callback': {
    get: {
      summary: 'Where the provider sends the browser back: a session cookie, then a redirect to the page.',
      public: true,
      responses: {
        '303': 'Signed in: to the page, with the session cookie.',
        '401':
          'SIGN_IN_FAILED: no sign-in under way here, a wrong state, a code refused, an ID token that does not verify.',
        '403': 'NOT_AN_APPROVER: the person may not sign in here.',
        '503': 'SIGN_IN_UNAVAILABLE: the provider could not be reached.',
      },
    },
  },
};

export const CHAT_OPERATIONS: Record<string, Partial<Record<Method, Operation>>> = {
  '/api/chats': {
    get: {
      summary: 'Chats, newest first.',
      responses: { '200': '{ chats: [{ chatId, threadId, status, createdAt }] }', ...AUTH_ERRORS },
    },
    post: {
      summary: 'Open a chat with the chat agent.',
      responses: {
        '201': '{ chatId, threadId }',
        '404': "WORKFLOW_NOT_FOUND: no live worker serves the chat's workflow (a deployment).",
        ...STATE_ERRORS,
      },
    },
  },
  '/api/chats/{chatId}/messages': {
    get: {
      summary: "A chat's transcript, oldest first.",
      responses: { '200': '{ entries: [ChatEntry] }', '404': 'CHAT_NOT_FOUND.', ...AUTH_ERRORS },
    },
    post: {
      summary: 'Send a message as the signed-in approver.',
      description:
        'A plain yes or no answers the chat\'s pending approval and never reaches the agent; with several pending, a bare yes gets a question back (result.kind "clarify"); anything else goes to the agent.',
      body: chatMessageBody,
      responses: {
        '200': '{ result: { kind: approval|clarify|agent|notice, … }, entries: [ChatEntry] }',
        ...STATE_ERRORS,
        '404': 'CHAT_NOT_FOUND.',
      },
    },
  },
};

/**
 * Adds operations (the chat routes) to the document. Returns the document
 * object served at `/api/openapi.json`.
 */
export function createOpenApiDocument(
  extra: Record<string, Partial<Record<Method, Operation>>> = {},
): Record<string, unknown> {
  const operations = { ...API_OPERATIONS, ...extra };
  const paths: Record<string, unknown> = {};
  for (const [path, methods] of Object.entries(operations)) {
    const parameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    paths[path] = Object.fromEntries(
      Object.entries(methods).map(([method, operation]) => [
        method,
        {
          summary: operation.summary,
          ...(operation.description === undefined ? {} : { description: operation.description }),
          ...(operation.public ? { security: [] } : {}),
          parameters: [
            ...parameters,
            ...Object.entries(operation.query?.properties ?? {}).map(([name, schema]) => ({
              name,
              in: 'query',
              required: false,
              schema,
            })),
          ],
          ...(operation.body === undefined
            ? {}
            : { requestBody: { required: true, content: { 'application/json': { schema: operation.body } } } }),
          responses: Object.fromEntries(
            Object.entries(operation.responses).map(([status, description]) => [
              status,
              {
                description,
                ...(Number(status) >= 400
                  ? { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }
                  : {}),
              },
            ]),
          ),
        },
      ]),
    );
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Interlock web API',
      version: '0.1.0',
      description:
        'The approval inbox of Interlock: pending interactions, answers, threads, the audit trail, live updates. Authenticate with the session cookie (POST /api/session) plus X-CSRF-Token on state changes, or with Authorization: Bearer <token>. Errors are JSON { code, message }.',
    },
    servers: [{ url: '/' }],
    security: [{ session: [] }, { bearer: [] }],
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'interlock_session' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: { Error: errorBody },
    },
    paths,
  };
}

export type ApiOperations = typeof API_OPERATIONS;
