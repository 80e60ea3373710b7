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
 * `interlock_apply` queues its jobs where the store's placement says (F38, issue 34),
 * PostgreSQL only. Before issue 34 the job queue's schema was derived twice, and on a URL
 * without a schema the two disagreed: AddCommitFunction1796256000000 queued jobs in
 * `"<current schema>_jobs"` (`public_jobs`), while the store installed graphile-worker in
 * `graphile_worker`, so no thread that continues in workers could start. Now the store
 * resolves one placement as it opens (its schema, from the options or `current_schema()`;
 * the job queue in `<schema>_jobs`) and installs graphile-worker there; this migration makes
 * the function of a database migrated before agree with it, whatever it said. A
 * `graphile_worker` schema an earlier release installed is left alone (nothing of
 * Interlock's was ever queued there; it may be another application's).
 */
export class RepairJobQueueSchema1796515200000 implements MigrationInterface {
  name = 'RepairJobQueueSchema1796515200000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(applyFunction(queryRunner, placementOfRunner(queryRunner).jobsSchema));
  }

  async down(): Promise<void> {
    // The function as it was queued jobs where nothing takes them: there is nothing to go back to.
  }
}

/** `interlock_apply` queueing jobs in `jobsSchema` (otherwise AddCommitFunction1796256000000's). */
function applyFunction(queryRunner: MigrationRunner, jobsSchema: string): string {
  const t = (name: string) => qualified(queryRunner, name);
  const f = (name: string) => qualified(queryRunner, name);
  return `CREATE OR REPLACE FUNCTION ${f('interlock_apply')}(unit jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      v_change jsonb;
      v_thread jsonb;
      v_audit jsonb[] := '{}';
      v_failed text[] := '{}';
      v_due jsonb := '{}';
      v_keys jsonb := '[]';
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
      FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'remember', '[]')) LOOP
        INSERT INTO ${t('remembered_approvals')} ("key", "expires_at") VALUES (v_change->>'key', (v_change->>'expiresAt')::bigint)
          ON CONFLICT ("key") DO UPDATE SET "expires_at" = excluded."expires_at";
      END LOOP;
      INSERT INTO ${t('workflow_definitions')} ("workflow_id", "version", "definition", "created_at")
        SELECT d->>'workflowId', d->>'version', d->>'definition', d->>'createdAt' FROM jsonb_array_elements(coalesce(unit->'definitions', '[]')) AS d
        ON CONFLICT DO NOTHING;
      -- The workers' jobs (graphile-worker's add_job: one with the key of a waiting job replaces it).
      FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'jobs', '[]')) LOOP
        PERFORM "${jobsSchema}".add_job(identifier => v_change->>'identifier', payload => (v_change->>'payload')::json,
          run_at => (v_change->>'runAt')::timestamptz, job_key => v_change->>'key', max_attempts => 25);
        IF (v_change->>'runAt')::timestamptz <= now() THEN
          v_due := jsonb_set(v_due, ARRAY[v_change->>'identifier'], to_jsonb(coalesce((v_due->>(v_change->>'identifier'))::integer, 0) + 1));
          IF jsonb_array_length(v_keys) < 50 THEN v_keys := v_keys || to_jsonb(v_change->>'key'); END IF;
        END IF;
      END LOOP;
      -- The due ones, announced for the worker process each is routed to (workers/job-nudges.ts);
      -- count 0: a listener that does not route ignores it.
      IF v_due <> '{}' THEN
        PERFORM pg_notify('jobs:insert', jsonb_build_object('count', 0,
          'interlock', jsonb_build_object('queue', '${jobsSchema}', 'ticket', random(), 'due', v_due, 'keys', v_keys))::text);
      END IF;
      RETURN jsonb_build_object('status', 'committed', 'thread', v_thread, 'audit', to_jsonb(v_audit), 'failed', to_jsonb(v_failed));
    END $$`;
}
