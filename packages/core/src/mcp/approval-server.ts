/**
 * Interlock as the approval service other agents ask, over MCP (issue 17). Two tools:
 *
 * - `approval_prompt`: the permission-prompt contract Claude Code documents for
 *   `--permission-prompt-tool` — input `{ tool_name, input, tool_use_id }`, output one text
 *   block holding `{"behavior":"allow","updatedInput":{…}}` or `{"behavior":"deny","message":"…"}`.
 *   The call is decided by Interlock's pipeline (rules, modes, shell rules, protected
 *   paths, memory) as a thread of the `interlock-mcp-permission` workflow; when a person is
 *   needed they answer wherever Interlock asks (web inbox, chat, `interlock respond`), and the
 *   answer — an edit becomes `updatedInput`, a rejection's reason the `message` — goes back.
 * - `ask_user`: a question for a person (USER_INTERACTION); the answer comes back as text.
 *
 * While a person is awaited the request is kept alive with progress notifications (when the
 * client sent a progress token). A client that gives up cancels the request: the thread is
 * cancelled, its interaction fails as `cancelled`, and a later answer is refused.
 *
 * @module
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { IUserInteractionHandler, InterlockEvent, WorkflowDefinitionInput } from '@interlock/sdk-types';
import { z } from 'zod';
import type { Interlock } from '../interlock.js';
import { outcomeOf, type ThreadOutcome } from '../engine/thread-outcome.js';

export const MCP_PERMISSION_WORKFLOW_ID = 'interlock-mcp-permission';
export const MCP_QUESTION_WORKFLOW_ID = 'interlock-mcp-question';
/** The channel the MCP server's threads ask on. */
export const MCP_CHANNEL = 'mcp';

/**
 * How long a person has to answer an agent's question by default: no deadline. The agent
 * waits (kept alive by progress notifications) for as long as it chooses to; giving up —
 * its own timeout, a cancellation, closing the connection — cancels the question. A
 * deadline of 30 s (a workflow's default) refused every call an inbox approver took longer over.
 */
export const DEFAULT_AGENT_ANSWER_TIMEOUT_MS = 0;

/** What {@link approvalServerWorkflows} builds. */
export interface ApprovalServerWorkflowOptions {
  /**
   * How long a person has to answer (ms; `0`: until the agent stops waiting). Default
   * {@link DEFAULT_AGENT_ANSWER_TIMEOUT_MS}. A call not approved in time is denied; a
   * question not answered in time ends without an answer.
   */
  answerTimeoutMs?: number;
}

/**
 * The two workflows behind the MCP tools; a process serving them needs them registered
 * (`createWorker({ workflows })`). A deadline other than the default is part of each
 * workflow's version (`3-answer-within-600000ms`), so servers with different deadlines on
 * one store each serve their own.
 */
export function approvalServerWorkflows(options: ApprovalServerWorkflowOptions = {}): WorkflowDefinitionInput[] {
  const timeout = options.answerTimeoutMs ?? DEFAULT_AGENT_ANSWER_TIMEOUT_MS;
  const within = timeout === DEFAULT_AGENT_ANSWER_TIMEOUT_MS ? '' : `-answer-within-${timeout}ms`;
  const end = (output: string) => ({ id: 'end', type: 'END' as const, config: { output } });
  return [
    {
      id: MCP_PERMISSION_WORKFLOW_ID,
      name: "An agent's tool call, decided by Interlock",
      // 2: the call is decided only, never run (decideOnly). 3: a person has until the agent stops waiting.
      version: `3${within}`,
      config: { toolApproval: { autoApprovedTools: [], approvalTimeout: timeout } },
      variables: [
        { name: 'toolName', scope: 'thread' },
        { name: 'toolInput', scope: 'thread' },
        { name: 'toolUseId', scope: 'thread' },
        { name: 'approvedInput', scope: 'thread' },
      ],
      nodes: [
        { id: 'start', type: 'START' },
        {
          id: 'decide',
          type: 'TOOL',
          config: {
            tool: '{{ toolName }}',
            argumentsFrom: 'toolInput',
            outputVariable: 'approvedInput',
            decideOnly: true,
          },
        },
        end('{{ approvedInput }}'),
      ],
      edges: [
        { from: 'start', to: 'decide' },
        { from: 'decide', to: 'end' },
      ],
    },
    {
      id: MCP_QUESTION_WORKFLOW_ID,
      name: "An agent's question for a person",
      version: `1${within}`,
      ...(timeout === 0 ? {} : { config: { timeout } }),
      variables: [
        { name: 'question', scope: 'thread' },
        { name: 'answer', scope: 'thread' },
      ],
      nodes: [
        { id: 'start', type: 'START' },
        {
          id: 'ask',
          type: 'USER_INTERACTION',
          config: {
            operationType: 'UPDATE_VARIABLES',
            prompt: '{{ question }}',
            variables: [{ variableName: 'answer', expression: '{{ input }}' }],
          },
        },
        end('{{ answer }}'),
      ],
      edges: [
        { from: 'start', to: 'ask' },
        { from: 'ask', to: 'end' },
      ],
    },
  ] as WorkflowDefinitionInput[];
}

/**
 * The handler of the MCP channel: it answers nothing itself and holds the question open, so
 * this process keeps the thread and picks up the answer a person gives anywhere else.
 */
export const holdUntilAnsweredElsewhere: IUserInteractionHandler = {
  handle: (_request, context) =>
    new Promise((resolve) => {
      if (context.signal.aborted) resolve({ outcome: 'deferred' });
      else context.signal.addEventListener('abort', () => resolve({ outcome: 'deferred' }), { once: true });
    }),
};

export interface ApprovalServerOptions {
  /** How often a waiting request reports progress, keeping the client's timeout at bay (ms). Default 10 000. */
  progressIntervalMs?: number;
  /** Told about each thread the server starts (for logs). */
  onThread?: (threadId: string, kind: 'permission' | 'question') => void;
}

/** Builds the MCP server (connect it to a stdio or Streamable HTTP transport). The Interlock must have {@link approvalServerWorkflows} registered and a handler for {@link MCP_CHANNEL}. */
export async function createApprovalMcpServer(
  interlock: Interlock,
  options: ApprovalServerOptions = {},
): Promise<McpServer> {
  const { McpServer: Server } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new Server({ name: 'interlock', version: '1' }, { capabilities: { tools: {} } });
  const progressIntervalMs = options.progressIntervalMs ?? 10_000;

  server.registerTool(
    'approval_prompt',
    {
      description:
        'Asks Interlock whether a tool call may run. Interlock decides with its rules and, when a person is needed, waits for their answer. ' +
        'Returns {"behavior":"allow","updatedInput":{…}} or {"behavior":"deny","message":"…"} as text.',
      inputSchema: {
        tool_name: z.string().min(1),
        input: z.record(z.string(), z.unknown()),
        tool_use_id: z.string().optional(),
      },
    },
    async ({ tool_name, input, tool_use_id }, extra) => {
      const handle = await interlock.start(MCP_PERMISSION_WORKFLOW_ID, {
        channel: MCP_CHANNEL,
        input: { toolName: tool_name, toolInput: input, toolUseId: tool_use_id ?? '' },
        ...(extra.sessionId === undefined ? {} : { session: { sessionId: extra.sessionId } }),
      });
      options.onThread?.(handle.threadId, 'permission');
      const outcome = await waitWithProgress(interlock, handle, extra, progressIntervalMs);
      return textResult(await permissionAnswer(interlock, outcome));
    },
  );

  server.registerTool(
    'ask_user',
    {
      description:
        'Asks a person a question through Interlock (its web inbox, chat or terminal) and returns their answer as text.',
      inputSchema: { question: z.string().min(1) },
    },
    async ({ question }, extra) => {
      const handle = await interlock.start(MCP_QUESTION_WORKFLOW_ID, {
        channel: MCP_CHANNEL,
        input: { question },
        ...(extra.sessionId === undefined ? {} : { session: { sessionId: extra.sessionId } }),
      });
      options.onThread?.(handle.threadId, 'question');
      const outcome = await waitWithProgress(interlock, handle, extra, progressIntervalMs);
      if (outcome.status === 'completed')
        return {
          content: [
            {
              type: 'text' as const,
              text: typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output),
            },
          ],
        };
      return { isError: true, content: [{ type: 'text' as const, text: `no answer: ${describeEnd(outcome)}` }] };
    },
  );
  return server;
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number | undefined } | undefined;
  sendNotification: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number; message?: string };
  }) => Promise<void>;
};

/**
 * Waits for the thread to end, reporting progress while a person is awaited; cancels the
 * thread when the client gives up (its pending interaction fails as `cancelled`).
 */
async function waitWithProgress(
  interlock: Interlock,
  handle: {
    threadId: string;
    events$: { subscribe(observer: (event: InterlockEvent) => void): { unsubscribe(): void } };
    done(): Promise<ThreadOutcome>;
    cancel(reason?: string): Promise<void>;
  },
  extra: Extra,
  intervalMs: number,
): Promise<ThreadOutcome> {
  const token = extra._meta?.progressToken;
  let waitingOn: string | undefined;
  const subscription = handle.events$.subscribe((event) => {
    if (event.type === 'USER_INTERACTION_REQUESTED') waitingOn = event.interactionId;
  });
  let beats = 0;
  const timer =
    token === undefined
      ? undefined
      : setInterval(() => {
          beats += 1;
          const message = waitingOn === undefined ? 'deciding' : `waiting for a person (interaction ${waitingOn})`;
          extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: beats, message },
            })
            .catch(() => undefined);
        }, intervalMs);
  const onAbort = () => {
    void handle.cancel('the MCP client stopped waiting for the answer').catch(() => undefined);
  };
  if (extra.signal.aborted) onAbort();
  else extra.signal.addEventListener('abort', onAbort, { once: true });
  try {
    let outcome = await handle.done();
    // Taken forward elsewhere (a worker, another process): follow the stored thread.
    while (outcome.status === 'waiting' || outcome.status === 'scheduled') {
      if (extra.signal.aborted) return { status: 'cancelled', threadId: handle.threadId };
      await new Promise((resolve) => setTimeout(resolve, 250));
      const thread = await interlock.thread(handle.threadId);
      if (thread === undefined) break;
      if (thread.status === 'completed' || thread.status === 'failed' || thread.status === 'cancelled')
        outcome = outcomeOf(thread);
    }
    return outcome;
  } finally {
    subscription.unsubscribe();
    if (timer !== undefined) clearInterval(timer);
    extra.signal.removeEventListener('abort', onAbort);
  }
}

type PermissionAnswer =
  { behavior: 'allow'; updatedInput: Record<string, unknown> } | { behavior: 'deny'; message: string };

/** The permission-prompt answer for a finished thread: the approved input, or why not (from the audit). */
async function permissionAnswer(interlock: Interlock, outcome: ThreadOutcome): Promise<PermissionAnswer> {
  if (
    outcome.status === 'completed' &&
    typeof outcome.output === 'object' &&
    outcome.output !== null &&
    !Array.isArray(outcome.output)
  ) {
    return { behavior: 'allow', updatedInput: outcome.output as Record<string, unknown> };
  }
  const denial = (await interlock.audit({ threadId: outcome.threadId }))
    .filter((entry) => entry.outcome === 'deny')
    .at(-1);
  if (denial !== undefined) return { behavior: 'deny', message: `${whoDenied(denial)}: ${denial.reason}` };
  return { behavior: 'deny', message: describeEnd(outcome) };
}

/** Who or what refused the call, as the agent is told: a person, an edit the rules refused, no answer in time, a rule. */
function whoDenied(denial: { decidedBy: string; rule: string; responder?: string }): string {
  const person = denial.responder ?? 'a person';
  if (denial.decidedBy === 'person' && denial.rule === 'edit:refused') return `the edit ${person} gave was refused`;
  if (denial.decidedBy === 'person') return `${person} rejected it`;
  if (denial.decidedBy.startsWith('interaction:'))
    return `no person approved it (${denial.decidedBy.slice('interaction:'.length)})`;
  return `denied by ${denial.rule}`;
}

function describeEnd(outcome: ThreadOutcome): string {
  switch (outcome.status) {
    case 'failed':
      return outcome.error.message;
    case 'cancelled':
      return 'the request was cancelled';
    default:
      return `the request ended ${outcome.status}`;
  }
}

function textResult(answer: PermissionAnswer) {
  return { content: [{ type: 'text' as const, text: JSON.stringify(answer) }] };
}
