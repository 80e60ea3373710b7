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
 * Says, for the worker `offerer`, that it serves these workflows until `until`. Workers renew
 * this while they run, each its own entries (so one that stops can withdraw its offer
 * without withdrawing another's), and drop the entries that lapsed before `now`: a worker
 * killed without stopping leaves entries nobody renews.
 */
export async function offerWorkflows(
  store: ICheckpointStore,
  workflows: readonly WorkflowDefinition[],
  until: string,
  offerer: string,
  now: number,
): Promise<void> {
  const entries = workflows.map((workflow): [string, ServedWorkflow] => [
    entryName(workflow, offerer),
    { workflowId: workflow.id, version: workflow.version, until },
  ]);
  const offered = new Set(entries.map(([name]) => name));
  const lapsed = Object.entries(await store.getGlobalVariables(SCOPE))
    .filter(([name, value]) => !offered.has(name) && Date.parse((value as ServedWorkflow).until) <= now)
    .map(([name]) => ({ kind: 'delete' as const, scope: SCOPE, name }));
  await store.commit({
    globals: [...entries.map(([name, value]) => ({ kind: 'set' as const, scope: SCOPE, name, value })), ...lapsed],
  });
}

/**
 * Withdraws the offer of the worker `offerer` at once (issue 37): a worker that stops no
 * longer counts as serving its workflows, so an answer given after it stopped is taken
 * forward by whoever gives it, not left for a worker that is gone.
 */
export async function withdrawWorkflows(
  store: ICheckpointStore,
  workflows: readonly WorkflowDefinition[],
  offerer: string,
): Promise<void> {
  await store.commit({
    globals: workflows.map((workflow) => ({
      kind: 'delete' as const,
      scope: SCOPE,
      name: entryName(workflow, offerer),
    })),
  });
}

function entryName(workflow: WorkflowDefinition, offerer: string): string {
  return `${workflow.id}@${workflow.version}#${offerer}`;
}

/**
 * Every workflow version some live worker serves at `now`, by id, then version. Threads of
 * each of these go on in a worker serving their version (their jobs are routed by version).
 */
export async function servedVersions(store: ICheckpointStore, now: number): Promise<ServedWorkflow[]> {
  const live = new Map<string, ServedWorkflow>();
  for (const value of Object.values(await store.getGlobalVariables(SCOPE))) {
    const served = value as ServedWorkflow;
    if (Date.parse(served.until) <= now) continue;
    const key = `${served.workflowId}@${served.version}`;
    const seen = live.get(key);
    if (seen === undefined || seen.until < served.until) live.set(key, served);
  }
  return [...live.values()].sort(
    (a, b) => a.workflowId.localeCompare(b.workflowId) || compareVersions(a.version, b.version),
  );
}

/**
 * The workflows some live worker serves at `now`, one version per workflow: the newest (by
 * the version's numbers, `10` after `9`), the one a new thread starts on. An answerer (the web
 * inbox) starts only these: their definitions are kept in the store
 * (`store.getWorkflowDefinition`), and a worker will take the thread forward. Threads of an
 * older version still served stay answerable ({@link servedVersions}).
 */
export async function servedWorkflows(store: ICheckpointStore, now: number): Promise<ServedWorkflow[]> {
  const newest = new Map<string, ServedWorkflow>();
  for (const served of await servedVersions(store, now)) newest.set(served.workflowId, served);
  return [...newest.values()];
}

/** Orders versions as people number them: `2` before `10`, `1.9` before `1.10`. */
export function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
