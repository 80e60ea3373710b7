import {
  listDirTool,
  readFileTool,
  scriptedModel,
  writeFileTool,
  type ModelRequest,
  type ModelResponse,
  type ModelToolCall,
  type ScriptedModel,
  type Tool,
} from '@interlock/core';
import type { Message, WorkflowDefinitionInput } from '@interlock/sdk-types';

/** The id of {@link chatDemoWorkflow} unless told otherwise. */
export const CHAT_DEMO_WORKFLOW_ID = 'chat-agent';

/** The node that waits for the next chat message (ADD_MESSAGE). */
export const CHAT_LISTEN_NODE_ID = 'listen';

export interface ChatDemoWorkflowOptions {
  /** Default {@link CHAT_DEMO_WORKFLOW_ID}. */
  id?: string;
  /** How many messages one chat takes before it ends. Default 200. */
  maxTurns?: number;
  /** How long a tool call waits for a yes or no (milliseconds or a duration such as `"10m"`). Default `"10m"`. */
  approvalTimeout?: number | string;
}

/**
 * A chat agent: a LOOP whose body waits for the person's next message (USER_INTERACTION
 * ADD_MESSAGE, no timeout: a chat may stay quiet for days) and then lets the model answer
 * with the file tools. Reads run; `write_file` asks for a yes or no in the chat. The loop
 * runs `maxTurns` times, then the chat ends.
 *
 * Register its tools with the instance: `createInterlock({ tools: chatDemoTools() })`.
 *
 * @example
 * const interlock = await createInterlock({ models: { default: chatDemoModel() }, tools: chatDemoTools() });
 * interlock.registerWorkflow(chatDemoWorkflow());
 */
export function chatDemoWorkflow(options: ChatDemoWorkflowOptions = {}): WorkflowDefinitionInput {
  const maxTurns = options.maxTurns ?? 200;
  return {
    id: options.id ?? CHAT_DEMO_WORKFLOW_ID,
    name: 'Chat agent with tool approval in the conversation',
    version: '1',
    description: 'Waits for a chat message, answers it with file tools; writes wait for a yes or no in the chat.',
    config: {
      timeout: 0,
      // Each message runs three nodes (LOOP, listen, agent).
      maxSteps: maxTurns * 3 + 10,
      toolApproval: { autoApprovedTools: [], approvalTimeout: options.approvalTimeout ?? '10m' },
    },
    variables: [{ name: 'turns', scope: 'thread', default: Array.from({ length: maxTurns }, (_, index) => index + 1) }],
    nodes: [
      { id: 'start', type: 'START' },
      {
        id: 'conversation',
        type: 'LOOP',
        config: { items: 'turns', itemVariable: 'turn', body: CHAT_LISTEN_NODE_ID, maxIterations: maxTurns },
      },
      {
        id: CHAT_LISTEN_NODE_ID,
        type: 'USER_INTERACTION',
        config: {
          operationType: 'ADD_MESSAGE',
          prompt: 'Your message',
          timeout: 0,
          message: { role: 'user', contentTemplate: '{{ input }}' },
        },
      },
      {
        id: 'agent',
        type: 'LLM',
        config: {
          systemPrompt:
            'You are a helpful assistant in a chat. You may read and write files of the workspace. ' +
            'Writes wait for the person to approve them; when one is refused, do not retry it unchanged.',
          tools: ['read_file', 'list_dir', 'write_file'],
          maxRounds: 6,
        },
      },
      { id: 'end', type: 'END' },
    ],
    edges: [
      { from: 'start', to: 'conversation' },
      { from: 'conversation', to: 'end' },
      { from: CHAT_LISTEN_NODE_ID, to: 'agent' },
      { from: 'agent', to: 'conversation' },
    ],
  };
}

/** The tools {@link chatDemoWorkflow} names: read_file and list_dir (run), write_file (asks). */
export function chatDemoTools(): Tool[] {
  return [readFileTool, listDirTool, writeFileTool];
}

/** What the demo agent writes to NOTES.md. */
export const CHAT_DEMO_NOTES = '# Notes\n\n- Talked with the chat agent.\n';
/** What the demo agent writes to TODO.md. */
export const CHAT_DEMO_TODO = '# To do\n\n- Read the notes.\n';

/**
 * The scripted agent of the chat demo (offline, deterministic). On the person's latest message:
 * - "write the notes" → proposes `write_file NOTES.md` (asks for approval);
 * - "write the todo" → proposes `write_file TODO.md`; both in one message → both calls in one turn;
 * - "list the files" → `list_dir .` (a read: runs without asking);
 * - anything else → `You said: "…"`.
 * After a tool turn it says what ran and what was refused.
 */
export function chatDemoModel(): ScriptedModel {
  return scriptedModel(replyTo);
}

function replyTo(request: ModelRequest): string | ModelResponse {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return summarise(request.messages);
  const said = last?.role === 'user' ? last.content.trim() : '';
  const turn = request.messages.filter((message) => message.role === 'user').length;
  const calls: ModelToolCall[] = [];
  if (/\bwrite the notes\b/i.test(said))
    calls.push({ id: `notes-${turn}`, name: 'write_file', arguments: { path: 'NOTES.md', content: CHAT_DEMO_NOTES } });
  if (/\bwrite the todo\b/i.test(said))
    calls.push({ id: `todo-${turn}`, name: 'write_file', arguments: { path: 'TODO.md', content: CHAT_DEMO_TODO } });
  if (/\blist the files\b/i.test(said)) calls.push({ id: `list-${turn}`, name: 'list_dir', arguments: { path: '.' } });
  if (calls.length > 0) return { text: `On it: ${calls.map(describe).join(' and ')}.`, toolCalls: calls };
  return said === '' ? 'Hello! What should I do?' : `You said: "${said}"`;
}

function summarise(messages: readonly Message[]): string {
  const proposal = messages.findLast((message) => message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0);
  const lines = (proposal?.toolCalls ?? []).map((call) => {
    const content =
      messages.find((message) => message.role === 'tool' && message.toolCallId === call.id)?.content ?? '';
    const status = /^\[([A-Z_]+)\]/.exec(content)?.[1] ?? 'ERROR';
    const name = describe({ id: call.id, name: call.name, arguments: call.arguments });
    if (status === 'SUCCESS') return `Done: ${name}.`;
    if (status === 'TIMEOUT') return `Not done: ${name} (nobody approved it in time).`;
    if (status === 'EXECUTION_REJECTED') return `Not done: ${name} (you said no).`;
    return `Not done: ${name} (${status}).`;
  });
  return lines.join('\n') || 'Done.';
}

function describe(call: ModelToolCall): string {
  const path = call.arguments['path'];
  return typeof path === 'string' ? `${call.name} ${path}` : call.name;
}
