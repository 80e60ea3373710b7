import { createHash } from 'node:crypto';

/**
 * What a worker is asked to do for a thread (issue 12):
 * - `continue`: take the thread forward after an answer was stored;
 * - `deadline`: time out an interaction whose deadline passed (then continue the thread);
 * - `recover`: look at a thread a worker claimed, once its claim should have ended: a
 *   thread left `running` by a worker that died, or answered and not taken forward, goes on;
 * - `escalate`: offer an approval that still waits to its escalation approvers (F51).
 * Jobs are routed by workflow: a worker takes only jobs of the workflows it registered.
 */
export type ThreadJobKind = 'continue' | 'deadline' | 'recover' | 'escalate';

export interface ThreadJob {
  kind: ThreadJobKind;
  threadId: string;
  workflowId: string;
  interactionId?: string;
  /** When the job is due (ISO 8601). */
  runAt: string;
  /** At most one job per key waits: a new one replaces it (`continue:<thread>`, `deadline:<interaction>`, `recover:<thread>`). */
  key: string;
}

export function continueJob(thread: { threadId: string; workflowId: string }, at: number): ThreadJob {
  return {
    kind: 'continue',
    threadId: thread.threadId,
    workflowId: thread.workflowId,
    runAt: iso(at),
    key: `continue:${thread.threadId}`,
  };
}

export function deadlineJob(
  thread: { threadId: string; workflowId: string },
  interactionId: string,
  deadline: string,
): ThreadJob {
  return {
    kind: 'deadline',
    threadId: thread.threadId,
    workflowId: thread.workflowId,
    interactionId,
    runAt: deadline,
    key: `deadline:${interactionId}`,
  };
}

export function escalateJob(
  thread: { threadId: string; workflowId: string },
  interactionId: string,
  at: string,
): ThreadJob {
  return {
    kind: 'escalate',
    threadId: thread.threadId,
    workflowId: thread.workflowId,
    interactionId,
    runAt: at,
    key: `escalate:${interactionId}`,
  };
}

export function recoverJob(thread: { threadId: string; workflowId: string }, at: number): ThreadJob {
  return {
    kind: 'recover',
    threadId: thread.threadId,
    workflowId: thread.workflowId,
    runAt: iso(at),
    key: `recover:${thread.threadId}`,
  };
}

/**
 * The queue's task name for the jobs of a workflow: `interlock:<workflow id>`, or a hash of
 * the id when it is long (a task name holds at most 128 characters).
 */
export function taskIdentifier(workflowId: string): string {
  const plain = `interlock:${workflowId}`;
  return plain.length <= 120
    ? plain
    : `interlock:#${createHash('sha256').update(workflowId).digest('hex').slice(0, 40)}`;
}

function iso(at: number): string {
  return new Date(at).toISOString();
}

/** The schema of the workers' job queue on PostgreSQL: `graphile_worker`, or `<schema>_jobs` beside a store schema. */
export function jobsSchemaOf(schema: string | undefined): string {
  return schema === undefined ? 'graphile_worker' : `${schema}_jobs`;
}
