import type { WorkflowDefinition } from '@interlock/sdk-types';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';

/**
 * Where workers say which workflows they serve: a scope of the store's global variables that
 * no workflow id can take (ids have no `:`), one entry per workflow and version.
 */
const SCOPE = 'interlock:served-workflows';

/** A workflow some worker serves, until `until` unless it says so again. */
export interface ServedWorkflow {
  workflowId: string;
  version: string;
  /** ISO 8601: the entry lapses then unless a worker renews it. */
  until: string;
}

/**
 * Says, for a worker, that it serves these workflows until `until`. Workers renew this while
 * they run; several workers serving one workflow renew one entry.
 */
export async function offerWorkflows(
  store: ICheckpointStore,
  workflows: readonly WorkflowDefinition[],
  until: string,
): Promise<void> {
  const entries = workflows.map((workflow): [string, ServedWorkflow] => [
    `${workflow.id}@${workflow.version}`,
    { workflowId: workflow.id, version: workflow.version, until },
  ]);
  await store.commit({ globals: entries.map(([name, value]) => ({ kind: 'set', scope: SCOPE, name, value })) });
}

/**
 * The workflows some live worker serves at `now`, one version per workflow (the one renewed
 * last), by id. An answerer (the web inbox) starts only these: their definitions are kept in
 * the store (`store.getWorkflowDefinition`), and a worker will take the thread forward.
 */
export async function servedWorkflows(store: ICheckpointStore, now: number): Promise<ServedWorkflow[]> {
  const latest = new Map<string, ServedWorkflow>();
  for (const value of Object.values(await store.getGlobalVariables(SCOPE))) {
    const served = value as ServedWorkflow;
    if (Date.parse(served.until) <= now) continue;
    const seen = latest.get(served.workflowId);
    if (seen === undefined || seen.until < served.until) latest.set(served.workflowId, served);
  }
  return [...latest.values()].sort((a, b) => a.workflowId.localeCompare(b.workflowId));
}
