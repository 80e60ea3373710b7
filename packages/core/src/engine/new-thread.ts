import { randomUUID } from 'node:crypto';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';
import type { ThreadLease, ThreadRecord } from '../persistence/checkpoint-store.js';
import { definitionHash } from '../workflow/definition-hash.js';
import { startNodeId } from './graph.js';
import { defaultsOf } from './variable-scopes.js';
import { isoTime } from './clock.js';

export interface StartOptions {
  /** Initial values of declared thread or subgraph variables. */
  input?: Record<string, unknown>;
  /** Which handler answers this thread's interactions; `none` means nobody can. Default `default`. */
  channel?: string;
  threadId?: string;
  /** The session the thread belongs to (defaults: sessionId = threadId); approval requests carry it (F27). */
  session?: { sessionId?: string; chatId?: string; parentThreadId?: string; requestedBy?: string };
  /**
   * The W3C trace context (`00-<trace id>-<span id>-<flags>`) the thread's spans join, in
   * every process that takes it forward (F59). Default: the span of this `start()` call,
   * under the caller's active span when there is one.
   */
  traceparent?: string;
}

/**
 * The record of a new thread of `workflow`, at its START node, held by its creator's
 * `claim` (none for a thread handed to the workers), bound to the hash of the definition it starts with. Input names a declared
 * thread or subgraph variable, or it is refused (VARIABLE_UNDECLARED).
 */
export function newThreadRecord(
  workflow: WorkflowDefinition,
  options: StartOptions,
  claim: { epoch: number; lease?: ThreadLease },
  now: number,
): ThreadRecord {
  const input = options.input ?? {};
  const declared = new Map(workflow.variables.map((declaration) => [declaration.name, declaration]));
  const variables = defaultsOf(workflow, 'thread');
  const frameVariables = defaultsOf(workflow, 'subgraph');
  for (const [name, value] of Object.entries(input)) {
    const declaration = declared.get(name);
    if (declaration?.scope === 'thread') variables[name] = value;
    else if (declaration?.scope === 'subgraph') frameVariables[name] = value;
    else
      throw new InterlockError(
        'VARIABLE_UNDECLARED',
        `input "${name}" is not a declared thread or subgraph variable of workflow "${workflow.id}"`,
      );
  }
  const at = isoTime(now);
  const threadId = options.threadId ?? randomUUID();
  const { session } = options;
  return {
    threadId,
    workflowId: workflow.id,
    workflowVersion: workflow.version,
    status: 'running',
    channel: options.channel ?? 'default',
    input,
    frames: [
      {
        workflowId: workflow.id,
        workflowVersion: workflow.version,
        definitionHash: definitionHash(workflow),
        cursor: startNodeId(workflow),
        variables: frameVariables,
        loops: [],
      },
    ],
    variables,
    conversation: [],
    session: {
      sessionId: session?.sessionId ?? threadId,
      ...(session?.chatId === undefined ? {} : { chatId: session.chatId }),
      ...(session?.parentThreadId === undefined ? {} : { parentThreadId: session.parentThreadId }),
      ...(session?.requestedBy === undefined ? {} : { requestedBy: session.requestedBy }),
    },
    toolApproval: structuredClone(workflow.config.toolApproval),
    pendingInteractionIds: [],
    activeNode: null,
    steps: 0,
    ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
    ...claim,
    version: 0,
    createdAt: at,
    updatedAt: at,
  };
}
