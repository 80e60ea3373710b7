import type { ModelMessage } from 'ai';

/** An approval request of the conversation no tool message answered yet, with the call the SDK will run for it. */
export interface OpenRequest {
  approvalId: string;
  toolCallId: string;
  /** The call as the SDK finds it when the answer comes back: the last tool-call part with the request's id. */
  toolName: string | undefined;
  input: unknown;
}

/**
 * The approval requests no tool message answered yet. The SDK runs an answered request's
 * call as the LAST tool-call part with its id stands in the conversation (ids are not
 * unique: a model repeats them), so that is the call each request is decided against.
 */
export function openRequests(messages: readonly ModelMessage[]): OpenRequest[] {
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-approval-response') answered.add(part.approvalId);
  }
  const requests: OpenRequest[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-approval-request' || answered.has(part.approvalId)) continue;
      const call = lastToolCall(messages, part.toolCallId);
      requests.push({
        approvalId: part.approvalId,
        toolCallId: part.toolCallId,
        toolName: call?.toolName,
        input: call?.input,
      });
    }
  }
  return requests;
}

/**
 * Whether the SDK is re-checking an approved call of the conversation's last tool message
 * before it runs it (AI SDK 7 asks `toolApproval` again then), rather than asking about a
 * call the model just made: the last message answers an approval request of this id with an
 * approval, and holds no result for it yet.
 */
export function isReplayOf(messages: readonly ModelMessage[], toolCallId: string): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return false;
  const requested = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content)
      if (part.type === 'tool-approval-request') requested.set(part.approvalId, part.toolCallId);
  }
  let approved = false;
  for (const part of last.content) {
    if (part.type === 'tool-result' && part.toolCallId === toolCallId) return false;
    if (part.type === 'tool-approval-response' && part.approved && requested.get(part.approvalId) === toolCallId)
      approved = true;
  }
  return approved;
}

/**
 * The conversation with each edited call's input replaced — only in the tool-call part the
 * SDK runs for the request (the last one with its id; an earlier call that reused the id
 * keeps the input it ran with).
 */
export function withEdits(
  messages: readonly ModelMessage[],
  edits: ReadonlyMap<string, Record<string, unknown>>,
): ModelMessage[] {
  if (edits.size === 0) return [...messages];
  const lastAt = new Map<string, [number, number]>();
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return;
    message.content.forEach((part, partIndex) => {
      if (part.type === 'tool-call' && edits.has(part.toolCallId))
        lastAt.set(part.toolCallId, [messageIndex, partIndex]);
    });
  });
  return messages.map((message, messageIndex) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    return {
      ...message,
      content: message.content.map((part, partIndex) => {
        if (part.type === 'tool-call') {
          const at = lastAt.get(part.toolCallId);
          return at?.[0] === messageIndex && at[1] === partIndex
            ? { ...part, input: edits.get(part.toolCallId) }
            : part;
        }
        // The SDK re-validates an approved call from the input before its schema's transforms
        // when the request carries one: the edited input stands in for it.
        if (part.type === 'tool-approval-request' && edits.has(part.toolCallId) && 'inputSchemaInput' in part) {
          const { inputSchemaInput: _before, ...rest } = part as typeof part & { inputSchemaInput?: unknown };
          return rest;
        }
        return part;
      }),
    };
  });
}

function lastToolCall(
  messages: readonly ModelMessage[],
  toolCallId: string,
): { toolName: string; input: unknown } | undefined {
  let found: { toolName: string; input: unknown } | undefined;
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content)
      if (part.type === 'tool-call' && part.toolCallId === toolCallId)
        found = { toolName: part.toolName, input: part.input };
  }
  return found;
}
