import type { MigrationInterface } from 'typeorm';
import { placementOfRunner, type MigrationRunner } from './migration-runner.js';

/*
 * A copy of the shared helpers, as in every migration: a migration that shipped must not
 * change when shared code does.
 */

/** `"schema"."name"` on PostgreSQL with a schema option, `"name"` otherwise. */
function qualified(queryRunner: MigrationRunner, name: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${name}"` : `"${schema}"."${name}"`;
}

/**
 * A unit's jobs in one call of graphile-worker's `add_jobs` (issue 38), PostgreSQL only:
 * every job of the unit in one set (it was one `add_job` each), the keys a unit drops
 * removed with `remove_job` (the recovery of a thread the unit ends), and no announcement
 * of our own: `add_jobs` sends graphile-worker's `jobs:insert`, which its local queue acts
 * on (the routing of workers/job-nudges.ts is gone). The rest of `interlock_apply` is
 * RepairJobQueueSchema1796515200000's.
 */
export class JobsInOneCall1796688000000 implements MigrationInterface {
  name = 'JobsInOneCall1796688000000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(applyFunction(queryRunner, placementOfRunner(queryRunner).jobsSchema));
  }

  async down(): Promise<void> {
    // The announcement it replaces went to a router that is gone: there is nothing to go back to.
  }
}

/** `interlock_apply` queueing a unit's jobs in one `add_jobs` in `jobsSchema`. */
function applyFunction(queryRunner: MigrationRunner, jobsSchema: string): string {
  const t = (name: string) => qualified(queryRunner, name);
  const f = (name: string) => qualified(queryRunner, name);
  return `CREATE OR REPLACE FUNCTION ${f('interlock_apply')}(unit jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      v_change jsonb;
      v_thread jsonb;
      v_audit jsonb[] := '{}';
      v_failed text[] := '{}';
    BEGIN
      IF unit->'thread' IS NOT NULL THEN v_thread := ${f('interlock_thread_change')}(unit->'thread'); END IF;
      FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'interactions', '[]')) LOOP
        IF ${f('interlock_interaction_change')}(v_change) THEN v_failed := v_failed || (v_change->>'interactionId'); END IF;
      END LOOP;
      FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'toolCalls', '[]')) LOOP
        PERFORM ${f('interlock_tool_call_change')}(v_change);
      END LOOP;
      FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'audit', '[]')) LOOP
        v_audit := v_audit || ${f('interlock_audit_append')}(v_change);
      END LOOP;
      FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'globals', '[]')) LOOP
        PERFORM ${f('interlock_global_change')}(v_change);
      END LOOP;
      IF unit->'anchor' IS NOT NULL THEN
        v_change := unit->'anchor';
        IF (v_change->>'sequence')::integer <> coalesce((SELECT max("sequence") FROM ${t('audit_anchors')}), 0) + 1 THEN
          PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'anchor-exists', 'sequence', (v_change->>'sequence')::integer));
        END IF;
        INSERT INTO ${t('audit_anchors')} ("sequence", "at", "through", "digest", "previous_hash", "hash")
          VALUES ((v_change->>'sequence')::integer, v_change->>'at', (v_change->>'through')::integer, v_change->>'digest', v_change->>'previousHash', v_change->>'hash')
          ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
          PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'anchor-exists', 'sequence', (v_change->>'sequence')::integer));
        END IF;
      END IF;
      IF unit->'remember' IS NOT NULL THEN
        -- The last of one key wins, as one upsert each would leave it.
        INSERT INTO ${t('remembered_approvals')} ("key", "expires_at")
          SELECT DISTINCT ON (r.v->>'key') r.v->>'key', (r.v->>'expiresAt')::bigint
            FROM jsonb_array_elements(unit->'remember') WITH ORDINALITY AS r(v, n) ORDER BY r.v->>'key', r.n DESC
          ON CONFLICT ("key") DO UPDATE SET "expires_at" = excluded."expires_at";
      END IF;
      IF unit->'definitions' IS NOT NULL THEN
        INSERT INTO ${t('workflow_definitions')} ("workflow_id", "version", "definition", "created_at")
          SELECT d->>'workflowId', d->>'version', d->>'definition', d->>'createdAt' FROM jsonb_array_elements(unit->'definitions') AS d
          ON CONFLICT DO NOTHING;
      END IF;
      -- The workers' jobs, all in one call (one with the key of a waiting job replaces it; the
      -- store sends one job per key); graphile-worker announces them on jobs:insert.
      IF unit->'jobs' IS NOT NULL THEN
        PERFORM "${jobsSchema}".add_jobs(ARRAY(
          SELECT ROW(j->>'identifier', (j->>'payload')::json, NULL, (j->>'runAt')::timestamptz, 25, j->>'key', NULL, NULL)::"${jobsSchema}".job_spec
            FROM jsonb_array_elements(unit->'jobs') AS j));
      END IF;
      IF unit->'dropJobs' IS NOT NULL THEN
        PERFORM "${jobsSchema}".remove_job(k) FROM jsonb_array_elements_text(unit->'dropJobs') AS k;
      END IF;
      RETURN jsonb_build_object('status', 'committed', 'thread', v_thread, 'audit', to_jsonb(v_audit), 'failed', to_jsonb(v_failed));
    END $$`;
}
