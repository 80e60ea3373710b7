import { InterlockError } from '@interlock/core';
import type { ThreadNotes } from './thread-notes.js';

/**
 * Runs `attempt` (a resume or an answer), relying on the engine to find the thread's
 * workflow in the store. An engine that cannot (it throws WORKFLOW_NOT_FOUND) gets the
 * workflow file the CLI noted when it started the thread, and `retry` runs. The answer of a
 * `respond` is stored before the engine looks for the workflow, so its retry is a resume.
 *
 * @param interlock - the Interlock that loads the noted file.
 * @throws the engine's WORKFLOW_NOT_FOUND, extended with where the CLI looked, when there is no note either.
 */
export async function withWorkflowFallback<T>(
  interlock: { loadWorkflow(path: string): Promise<unknown> },
  notes: ThreadNotes,
  threadId: string,
  attempt: () => Promise<T>,
  retry: () => Promise<T>,
): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!InterlockError.is(error) || error.code !== 'WORKFLOW_NOT_FOUND') throw error;
    const note = await notes.recall(threadId);
    if (note === undefined) {
      throw new InterlockError(
        'WORKFLOW_NOT_FOUND',
        `${error.message} (the CLI has no note of the workflow file of thread ${threadId} either: it was not started by interlock run in this store)`,
        { cause: error },
      );
    }
    await interlock.loadWorkflow(note.workflowPath);
    return retry();
  }
}
