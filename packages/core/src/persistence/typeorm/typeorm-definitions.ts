import type { WorkflowDefinition } from '@interlock/sdk-types';
import type { EntityManager } from 'typeorm';
import { taskIdentifier, type ThreadJob } from '../../workers/thread-jobs.js';
import { toWorkflowDefinition, toWorkflowDefinitionRow } from '../sql/record-mapping.js';
import type { GlobalVariableRow } from '../sql/row-types.js';
import { decodeOptionalJson, encodeOptionalJson, isStorableText, storableText } from '../sql/stored-text.js';
import { GlobalVariableEntity, WorkflowDefinitionEntity } from './store-entities.js';
import type { RunInTransaction } from './typeorm-audit-and-memory.js';

/*
 * What the TypeORM store keeps beside threads: global variables, workflow definitions and
 * the workers' jobs, as functions the store delegates to. `read` and `write` are the
 * store's transaction runners.
 */

const BATCH = 500;

export async function getGlobalVariables(read: RunInTransaction, workflowId: string): Promise<Record<string, unknown>> {
  if (!isStorableText(workflowId)) return {};
  const rows = await read((manager) => manager.find(GlobalVariableEntity, { where: { workflowId } }));
  return Object.fromEntries(
    rows.map((row) => [
      row.name,
      decodeOptionalJson(row.value, `global variable ${row.name} of workflow ${workflowId}`),
    ]),
  );
}

/** Sets global variables in one transaction; with `onlyIfAbsent`, an existing variable is left as it is. */
export async function setGlobalVariables(
  write: RunInTransaction,
  workflowId: string,
  values: Record<string, unknown>,
  options: { onlyIfAbsent?: boolean },
): Promise<void> {
  const rows: GlobalVariableRow[] = Object.entries(values).map(([name, value]) => ({
    workflowId: storableText(workflowId, 'workflow id'),
    name: storableText(name, 'global variable name'),
    value: encodeOptionalJson(value, `global variable ${name} of workflow ${workflowId}`),
  }));
  if (rows.length === 0) return;
  await write(async (manager) => {
    for (let start = 0; start < rows.length; start += BATCH) {
      const insert = manager
        .createQueryBuilder()
        .insert()
        .into(GlobalVariableEntity)
        .values(rows.slice(start, start + BATCH));
      await (options.onlyIfAbsent ? insert.orIgnore() : insert.orUpdate(['value'], ['workflow_id', 'name'])).execute();
    }
  });
}

/**
 * Stores a workflow definition unless this id and version are stored already: the first
 * one stored is kept, so a thread always resumes with the definition it started with.
 *
 * @throws InterlockError INVALID_OPTIONS when the id or version cannot be stored.
 */
export async function saveWorkflowDefinition(write: RunInTransaction, definition: WorkflowDefinition): Promise<void> {
  const row = toWorkflowDefinitionRow(definition, new Date().toISOString());
  await write((manager) =>
    manager.createQueryBuilder().insert().into(WorkflowDefinitionEntity).values(row).orIgnore().execute(),
  );
}

export async function getWorkflowDefinition(
  read: RunInTransaction,
  workflowId: string,
  version: string,
): Promise<WorkflowDefinition | undefined> {
  if (!isStorableText(workflowId) || !isStorableText(version)) return undefined;
  const row = await read((manager) => manager.findOne(WorkflowDefinitionEntity, { where: { workflowId, version } }));
  return row === null ? undefined : toWorkflowDefinition(row);
}

/**
 * Adds jobs to the job queue inside the caller's transaction (graphile-worker's
 * `add_job`, one statement each): they exist exactly when the write they go with does.
 */
export async function addJobs(manager: EntityManager, jobsSchema: string, jobs: readonly ThreadJob[]): Promise<void> {
  if (jobs.length === 0) return;
  for (const job of jobs) {
    const { key, runAt, workflowId, ...payload } = job;
    await manager.query(
      `SELECT 1 FROM "${jobsSchema}".add_job(identifier => $1::text, payload => $2::json, run_at => $3::timestamptz, job_key => $4::text, max_attempts => 25)`,
      [taskIdentifier(workflowId), JSON.stringify({ ...payload, workflowId, key }), runAt, key],
    );
  }
}
