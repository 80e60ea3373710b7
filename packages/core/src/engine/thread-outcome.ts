import type { ThreadError } from '@interlock/sdk-types';
import type { ThreadRecord } from '../persistence/checkpoint-store.js';

/** How a run of a thread ended in this process. */
export type ThreadOutcome =
  | { status: 'completed'; threadId: string; output: unknown; variables: Record<string, unknown> }
  | { status: 'waiting'; threadId: string; pendingInteractionIds: string[] }
  | { status: 'failed'; threadId: string; error: ThreadError }
  | { status: 'cancelled'; threadId: string }
  /** Handed to the workers (`continueIn: 'workers-only'`): a worker serving its workflow takes it forward. */
  | { status: 'scheduled'; threadId: string };

export function outcomeOf(thread: ThreadRecord): ThreadOutcome {
  const { threadId } = thread;
  switch (thread.status) {
    case 'completed':
      return { status: 'completed', threadId, output: thread.output ?? null, variables: thread.variables };
    case 'failed':
      return { status: 'failed', threadId, error: thread.error ?? { code: 'INTERNAL', message: 'unknown failure' } };
    case 'cancelled':
      return { status: 'cancelled', threadId };
    case 'waiting':
    case 'running':
      return {
        status: 'waiting',
        threadId,
        pendingInteractionIds: [...thread.pendingInteractionIds],
      };
  }
}
