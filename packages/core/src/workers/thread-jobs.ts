import { createHash } from 'node:crypto';
import type { RememberedApprovals, StoredThread } from '../persistence/checkpoint-store.js';
import { memoryScopeOf, SessionMemory } from '../policy/session-memory.js';

/**
 * What a worker is asked to do for a thread (issue 12):
 * - `continue`: take the thread forward after an answer was stored;
 * - `deadline`: time out an interaction whose deadline passed (then continue the thread);
 * - `recover`: look at a thread a worker claimed, once its claim should have ended: a
 *   thread left `running` by a worker that died, or answered and not taken forward, goes on;
 * - `escalate`: offer an approval that still waits to its escalation approvers (F51).
 * Jobs are routed by workflow version: a worker takes only the jobs of the workflow versions
 * it serves, so during a rolling deploy a thread of version 1 goes on in a worker that still
 * serves version 1, never in one that moved on to version 2.
 */
export type ThreadJobKind = 'continue' | 'deadline' | 'recover' | 'escalate';

export interface ThreadJob {
  kind: ThreadJobKind;
  threadId: string;
  /**
   * The queue the job is routed by: the thread's workflow id and version, `refund@2`
   * ({@link jobQueue}). Workers take the jobs of the queues of the versions they serve.
   */
  workflowId: string;
  interactionId?: string;
  /** When the job is due (ISO 8601). */
  runAt: string;
  /**
   * At most one job per key waits: a new one replaces it (`continue:<thread>`,
   * `handover:<thread>`, `deadline:<interaction>`, `recover:<thread>`).
   */
  key: string;
  /**
   * The thread as the unit that added the job left it (a `continue` job of a thread handed
   * over or answered; issue 38): the worker goes on from it without reading it back. Its
   * version fences the worker's first commit, so a copy that went stale meanwhile is refused
   * and the thread is read again. Kept by the job queues that carry a payload (PostgreSQL).
   */
  stored?: StoredThread;
  /**
   * With `stored`: the scope (`SessionMemory.scopeKey`) whose remembered approvals the store
   * adds to the job as `remembered` when it adds the job, in the same transaction (issue 38).
   */
  rememberedScope?: string;
  /** Added by the store (PostgreSQL): see `rememberedScope`. The worker decides from them without reading them. */
  remembered?: RememberedApprovals;
}

/** What a job needs of its thread: its id, and the workflow and version it runs (the job's queue). */
export interface JobThread {
  threadId: string;
  workflowId: string;
  workflowVersion: string;
}

/** The queue of a workflow version's jobs: `<workflow id>@<version>` (an id has no `@`). */
export function jobQueue(workflowId: string, version: string): string {
  return `${workflowId}@${version}`;
}

export function continueJob(thread: JobThread, at: number, stored?: StoredThread): ThreadJob {
  return {
    kind: 'continue',
    threadId: thread.threadId,
    workflowId: jobQueue(thread.workflowId, thread.workflowVersion),
    runAt: iso(at),
    key: `continue:${thread.threadId}`,
    ...(stored === undefined ? {} : { stored, rememberedScope: SessionMemory.scopeKey(memoryScopeOf(stored.thread)) }),
  };
}

export function deadlineJob(thread: JobThread, interactionId: string, deadline: string): ThreadJob {
  return {
    kind: 'deadline',
    threadId: thread.threadId,
    workflowId: jobQueue(thread.workflowId, thread.workflowVersion),
    interactionId,
    runAt: deadline,
    key: `deadline:${interactionId}`,
  };
}

export function escalateJob(thread: JobThread, interactionId: string, at: string): ThreadJob {
  return {
    kind: 'escalate',
    threadId: thread.threadId,
    workflowId: jobQueue(thread.workflowId, thread.workflowVersion),
    interactionId,
    runAt: at,
    key: `escalate:${interactionId}`,
  };
}

/**
 * A look at the thread at `at`. One waits per thread (`recover:<thread>`): a later one
 * replaces it, and the unit that ends the thread removes it (see `JobPlanner.forEnd`).
 */
export function recoverJob(thread: JobThread, at: number): ThreadJob {
  return {
    kind: 'recover',
    threadId: thread.threadId,
    workflowId: jobQueue(thread.workflowId, thread.workflowVersion),
    runAt: iso(at),
    key: recoverKey(thread.threadId),
  };
}

/** The key of a thread's recover job. */
export function recoverKey(threadId: string): string {
  return `recover:${threadId}`;
}

/**
 * graphile-worker's task name for the jobs of a queue ({@link jobQueue}): `interlock:<id>@<version>`,
 * or a hash of the queue when it is long (a task name holds at most 128 characters).
 */
export function taskIdentifier(queue: string): string {
  const plain = `interlock:${queue}`;
  return plain.length <= 120 ? plain : `interlock:#${createHash('sha256').update(queue).digest('hex').slice(0, 40)}`;
}

function iso(at: number): string {
  return new Date(at).toISOString();
}
