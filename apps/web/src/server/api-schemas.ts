/**
 * The JSON Schemas of the API's request bodies and query strings: fastify validates with
 * them, and the OpenAPI document (openapi.ts) shows the same objects.
 */

export const signInBody = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: {
    token: {
      type: 'string',
      minLength: 1,
      maxLength: 512,
      description: 'The token printed at first start, or one from the approvers file.',
    },
  },
} as const;

export const respondBody = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: {
    action: {
      type: 'string',
      enum: ['approve', 'edit', 'reject', 'answer'],
      description: 'approve, edit (approve with `arguments`) or reject a tool call; answer a question with `value`.',
    },
    arguments: {
      type: 'object',
      description: "edit: the arguments that run instead; checked against the tool's schema.",
    },
    reason: { type: 'string', maxLength: 2000, description: 'reject: why, told to the model.' },
    instruction: {
      type: 'string',
      maxLength: 4000,
      description: 'approve, edit or reject: an instruction added to the conversation as a user message.',
    },
    remember: {
      type: 'boolean',
      description: 'approve or edit: remember this approval for the session (MEDIUM risk only).',
    },
    resolution: {
      type: 'string',
      enum: ['done', 'retry', 'failed', 'fail'],
      description:
        'For a call whose outcome is unknown (stage recovery), with approve: it ran (done), run it again (retry), or it failed (failed; `fail` is the same); with reject: failed. A plain approve does not answer it (422).',
    },
    value: { description: 'answer: the text or JSON value the question asks for.' },
  },
} as const;

export const batchApproveBody = {
  type: 'object',
  additionalProperties: false,
  required: ['interactionIds'],
  properties: {
    interactionIds: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      items: { type: 'string', minLength: 1 },
    },
  },
} as const;

export const startThreadBody = {
  type: 'object',
  additionalProperties: false,
  required: ['workflowId'],
  properties: {
    workflowId: { type: 'string', minLength: 1 },
    input: { type: 'object', description: 'Initial values of declared thread variables.' },
  },
} as const;

export const cancelThreadBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { reason: { type: 'string', maxLength: 2000 } },
} as const;

export const pendingQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    threadId: { type: 'string' },
    workflowId: { type: 'string' },
    channel: { type: 'string' },
    tool: { type: 'string', description: 'Tool name of a TOOL_APPROVAL.' },
    risk: { type: 'string', enum: ['LOW', 'MEDIUM', 'HIGH'] },
  },
} as const;

export const threadsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['running', 'waiting', 'completed', 'failed', 'cancelled'] } },
} as const;

export const auditQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { threadId: { type: 'string' } },
} as const;

export const idParams = (name: string) =>
  ({
    type: 'object',
    required: [name],
    properties: { [name]: { type: 'string', minLength: 1, maxLength: 200 } },
  }) as const;

/** The JSON body of every error. */
export const errorBody = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', description: 'A stable code, e.g. INTERACTION_ALREADY_ANSWERED (docs/web.md lists them).' },
    message: { type: 'string', description: 'What happened and what to do.' },
    details: { type: 'object' },
  },
} as const;

export const chatMessageBody = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    text: {
      type: 'string',
      minLength: 1,
      maxLength: 8000,
      description: "The message; a plain yes or no answers the chat's pending approval.",
    },
  },
} as const;
