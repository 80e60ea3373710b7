import { randomUUID } from 'node:crypto';
import type { Message } from '@interlock/sdk-types';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { InterlockError } from '../errors/interlock-error.js';
import type { ModelResponse, ModelToolCall, ToolSpec } from './model-provider.js';

/** How much of a model's raw tool-call arguments an `argumentsError` quotes. */
const RAW_ARGUMENTS_PREVIEW = 200;

/**
 * Converts Interlock's conversation to chat-completions messages: an assistant's tool calls
 * become `tool_calls` with JSON-encoded arguments, tool results answer them by `tool_call_id`.
 *
 * @throws InterlockError `MODEL_FAILED` when a tool message has no `toolCallId` (the server
 *   could not tell which call it answers).
 */
export function toChatMessages(messages: readonly Message[]): ChatCompletionMessageParam[] {
  return messages.map((message, position): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant':
        if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          // Some servers reject an empty string beside tool calls; null is what OpenAI sends back.
          content: message.content === '' ? null : message.content,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.arguments) },
          })),
        };
      case 'tool':
        if (message.toolCallId === undefined) {
          throw new InterlockError(
            'MODEL_FAILED',
            `message ${position} of the conversation is a tool result without a toolCallId, so the model cannot tell which call it answers: set toolCallId to the id of the assistant's tool call`,
            { details: { position } },
          );
        }
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

/** Converts tool specs to chat-completions function tools (parameters stay JSON Schema). */
export function toChatTools(tools: readonly ToolSpec[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * Reads a model's tool-call arguments. Anything but a JSON object (malformed or cut-off JSON,
 * a list, a string) gives `arguments: {}` and an `argumentsError` quoting the raw text, so the
 * loop can tell the model what to fix instead of failing the run.
 *
 * @param raw the arguments as sent: normally a JSON string; some servers send the object itself.
 * @param cutOff true when the reply stopped at the token limit, which explains broken JSON.
 */
export function parseToolArguments(raw: unknown, cutOff = false): Pick<ModelToolCall, 'arguments' | 'argumentsError'> {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    // A tool without parameters is often called with no arguments at all.
    if (raw.trim() === '') return { arguments: {} };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { arguments: {}, argumentsError: argumentsError(`are not valid JSON (${reason})`, raw, cutOff) };
    }
  } else if (raw === undefined || raw === null) {
    return { arguments: {} };
  }
  if (isPlainObject(value)) return { arguments: value };
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return {
    arguments: {},
    argumentsError: argumentsError(`must be a JSON object, but they are ${describe(value)}`, text, cutOff),
  };
}

/** Reads a non-streamed completion's first choice. */
export function fromChatCompletion(completion: ChatCompletion): ModelResponse {
  // Some servers omit `choices` on odd replies; the SDK's type does not say so.
  const { choices } = completion as Partial<ChatCompletion>;
  const choice = choices?.[0];
  if (!choice) {
    throw new InterlockError(
      'MODEL_FAILED',
      'the server answered without any choice: check that it speaks the chat-completions API',
    );
  }
  const cutOff = choice.finish_reason === 'length';
  const toolCalls: ModelToolCall[] = [];
  for (const call of choice.message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    toolCalls.push({
      id: call.id || newToolCallId(),
      name: call.function.name,
      ...parseToolArguments(call.function.arguments, cutOff),
    });
  }
  return withToolCalls(choice.message.content ?? '', toolCalls);
}

/** A tool call as it streams: id and name usually first, the arguments in pieces. */
interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Assembles streamed tool-call deltas into tool calls. Deltas are matched by `index`; a
 * delta that brings a different id for a taken index starts a new call (some servers send
 * every call at index 0).
 */
export class ToolCallAssembler {
  private readonly calls: PartialToolCall[] = [];
  private readonly byIndex = new Map<number, PartialToolCall>();

  add(deltas: readonly ChatCompletionChunk.Choice.Delta.ToolCall[]): void {
    for (const [position, delta] of deltas.entries()) {
      // `index` is required by the spec; fall back to the position for servers that drop it.
      const index = typeof delta.index === 'number' ? delta.index : position;
      let call = this.byIndex.get(index);
      if (!call || (delta.id && call.id && delta.id !== call.id)) {
        call = { id: '', name: '', arguments: '' };
        this.calls.push(call);
        this.byIndex.set(index, call);
      }
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name = delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
    }
  }

  /** The assembled calls, arguments parsed; `cutOff` when the reply stopped at the token limit. */
  finish(cutOff: boolean): ModelToolCall[] {
    return this.calls.map((call) => ({
      id: call.id || newToolCallId(),
      name: call.name,
      ...parseToolArguments(call.arguments, cutOff),
    }));
  }
}

/** A response with `toolCalls` only when there are some, as `scriptedModel` answers. */
export function withToolCalls(text: string, toolCalls: ModelToolCall[]): ModelResponse {
  return toolCalls.length > 0 ? { text, toolCalls } : { text };
}

function argumentsError(problem: string, raw: string, cutOff: boolean): string {
  const preview =
    raw.length > RAW_ARGUMENTS_PREVIEW ? `${raw.slice(0, RAW_ARGUMENTS_PREVIEW)}… (${raw.length} characters)` : raw;
  const why = cutOff ? ' (the reply was cut off at the token limit)' : '';
  return `the tool-call arguments ${problem}${why}; send a JSON object matching the tool's parameters. Received: ${preview}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Ids for servers that leave them out; the tool result must still name its call. */
function newToolCallId(): string {
  return `call_${randomUUID()}`;
}
