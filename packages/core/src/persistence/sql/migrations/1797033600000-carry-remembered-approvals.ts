import type { MigrationInterface } from 'typeorm';
import type { MigrationRunner } from './migration-runner.js';

/*
 * A copy of the shared helpers, as in every migration: a migration that shipped must not
 * change when shared code does.
 */

/** `"schema"."name"` on PostgreSQL with a schema option, `"name"` otherwise. */
function qualified(queryRunner: MigrationRunner, name: string): string {
  const schema = queryRunner.connection.driver.schema;
  return schema === undefined ? `"${name}"` : `"${schema}"."${name}"`;
}

/** The most remembered approvals of one scope a job carries; a scope with more is read by the worker. */
const MOST_CARRIED = 64;

/**
 * Remembered approvals carried with a worker's job (issue 38). A remembered approval's row
 * says the scope it was given in (`scope`: channel and chat, hashed; indexed where set), and
 * `interlock_commit` (PostgreSQL) adds to each job that names a scope (`rememberedScope`)
 * every approval of that scope that has not expired, as `remembered` in its payload, in the
 * transaction that adds the job: the worker that takes the job decides from them, without
 * reading `remembered_approvals` for each call it is asked to run.
 *
 * It writes a unit's remembered approvals itself, with their scope, before the rest of the
 * unit (`interlock_apply` as LeanCommit1796947200000 made it), so a job sees those of its
 * own unit. A conflict still rolls back all of it (the same subtransaction). Rows written
 * before have no scope and are in no job: a worker asks a person again for one of them,
 * never the other way round. SQLite gets the column and the index too (the store's tables
 * are one schema); it writes no scope, as its jobs carry no payload.
 */
export class CarryRememberedApprovals1797033600000 implements MigrationInterface {
  name = 'CarryRememberedApprovals1797033600000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const table = qualified(queryRunner, 'remembered_approvals');
    await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN "scope" text`);
    // Only rows with a scope: on SQLite, which writes none, it stays empty (no bytes per thread).
    await queryRunner.query(
      `CREATE INDEX "idx_remembered_approvals_scope" ON ${table} ("scope") WHERE "scope" IS NOT NULL`,
    );
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(commitFunction(queryRunner, carryingRemembered(queryRunner)));
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type === 'postgres')
      await queryRunner.query(commitFunction(queryRunner, ''));
    // An index lives in its table's schema.
    await queryRunner.query(`DROP INDEX ${qualified(queryRunner, 'idx_remembered_approvals_scope')}`);
    await queryRunner.query(`ALTER TABLE ${qualified(queryRunner, 'remembered_approvals')} DROP COLUMN "scope"`);
  }
}

/**
 * `interlock_commit`, as AddCommitFunction1796256000000 made it (planned once per
 * connection: LeanCommit1796947200000), with `before` run ahead of `interlock_apply`.
 */
function commitFunction(queryRunner: MigrationRunner, before: string): string {
  const f = (name: string) => qualified(queryRunner, name);
  return `CREATE OR REPLACE FUNCTION ${f('interlock_commit')}(unit jsonb) RETURNS jsonb LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan AS $$
      DECLARE
        v_conflict text;
      BEGIN
        ${before}
        RETURN ${f('interlock_apply')}(unit);
      EXCEPTION WHEN SQLSTATE 'IL409' THEN
        GET STACKED DIAGNOSTICS v_conflict = MESSAGE_TEXT;
        RETURN jsonb_build_object('status', 'conflict', 'conflict', v_conflict::jsonb);
      END $$`;
}

/** The unit's remembered approvals written with their scope, then each scope's approvals added to the jobs that name it. */
function carryingRemembered(queryRunner: MigrationRunner): string {
  const table = qualified(queryRunner, 'remembered_approvals');
  // Now in ms since the epoch, as the expiry is kept (an approval the worker's clock finds expired is not used).
  const now = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;
  return `IF unit ? 'remember' THEN
          -- The last of one key wins, as one upsert each would leave it.
          INSERT INTO ${table} ("key", "expires_at", "scope")
            SELECT DISTINCT ON (r.v->>'key') r.v->>'key', (r.v->>'expiresAt')::bigint, r.v->>'scope'
              FROM jsonb_array_elements(unit->'remember') WITH ORDINALITY AS r(v, n) ORDER BY r.v->>'key', r.n DESC
            ON CONFLICT ("key") DO UPDATE SET "expires_at" = excluded."expires_at", "scope" = excluded."scope";
          unit := unit - 'remember';
        END IF;
        IF jsonb_path_exists(unit, '$.jobs[*].rememberedScope') THEN
          -- The payload is JSON text (graphile-worker's json): "remembered" goes in before its closing brace.
          unit := jsonb_set(unit, '{jobs}', (
            SELECT jsonb_agg(CASE
                WHEN s.carried IS NULL THEN j.v
                ELSE jsonb_set(j.v, '{payload}', to_jsonb(left(j.v->>'payload', -1) || ',"remembered":' || s.carried || '}'))
              END ORDER BY j.n)
              FROM jsonb_array_elements(unit->'jobs') WITH ORDINALITY AS j(v, n)
              LEFT JOIN LATERAL (
                SELECT CASE WHEN count(*) <= ${MOST_CARRIED} THEN jsonb_build_object(
                    'scope', j.v->>'rememberedScope',
                    'entries', COALESCE(jsonb_object_agg(a."key", a."expires_at"), '{}'::jsonb))::text END AS carried
                  FROM (SELECT "key", "expires_at" FROM ${table}
                    WHERE "scope" = j.v->>'rememberedScope' AND "expires_at" > ${now}
                    LIMIT ${MOST_CARRIED + 1}) AS a
              ) AS s ON j.v ? 'rememberedScope'));
        END IF;`;
}
