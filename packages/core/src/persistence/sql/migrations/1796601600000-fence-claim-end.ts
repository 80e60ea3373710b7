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

/**
 * The claim's end as part of the fence (issue 35, F53, F54): a save that keeps or frees the
 * claim, and a renewal, carry `now` (when the writer built the unit), and
 * `interlock_thread_change` refuses them with `claim-ended` when the claim of their epoch
 * ended before then — even if no other process took the thread yet. Its other branches are
 * those of AddCommitFunction1796256000000. SQLite checks it in its own statements
 * (sqlite/sqlite-statements.ts) and skips this.
 */
export class FenceClaimEnd1796601600000 implements MigrationInterface {
  name = 'FenceClaimEnd1796601600000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(threadChange(queryRunner, true));
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(threadChange(queryRunner, false));
  }
}

/** `interlock_thread_change`, with (`fenceEnd`) or without the claim's end in its fence. */
function threadChange(queryRunner: MigrationRunner, fenceEnd: boolean): string {
  const t = (name: string) => qualified(queryRunner, name);
  const f = (name: string) => qualified(queryRunner, name);
  // Text comparisons of ISO times, byte by byte as the take's own.
  const renewRuns = fenceEnd
    ? ` AND (v_kind <> 'renew' OR v_now IS NULL OR "lease_until" COLLATE "C" > v_now COLLATE "C")`
    : '';
  const saveRuns = fenceEnd
    ? `
              AND (v_claim = 'take' OR v_now IS NULL OR (s."lease_until" IS NOT NULL AND s."lease_until" COLLATE "C" > v_now COLLATE "C"))`
    : '';
  const renewEnded = fenceEnd
    ? `
            SELECT "version", "epoch", "lease_owner", "lease_until" INTO v_saved FROM ${t('threads')} WHERE "thread_id" = v_id;
            IF FOUND AND v_kind = 'renew' AND v_now IS NOT NULL AND v_saved.epoch = (c->>'epoch')::integer
                AND (v_saved.lease_owner IS NULL OR v_saved.lease_owner = c->>'owner')
                AND (v_saved.lease_until IS NULL OR v_saved.lease_until COLLATE "C" <= v_now COLLATE "C") THEN
              PERFORM ${f('interlock_refuse')}(jsonb_strip_nulls(jsonb_build_object('kind', 'claim-ended', 'threadId', v_id, 'until', v_saved.lease_until)));
            END IF;`
    : '';
  const saveEnded = fenceEnd
    ? `
            IF v_saved.version = (c->>'expectedVersion')::integer AND v_saved.epoch = (v_row->>'epoch')::integer AND v_claim <> 'take'
                AND v_now IS NOT NULL THEN
              PERFORM ${f('interlock_refuse')}(jsonb_strip_nulls(jsonb_build_object('kind', 'claim-ended', 'threadId', v_id, 'until', v_saved.lease_until)));
            END IF;`
    : '';
  return `CREATE OR REPLACE FUNCTION ${f('interlock_thread_change')}(c jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
      DECLARE
        v_kind text := c->>'kind';
        v_row jsonb := c->'row';
        v_id text := coalesce(c->'row'->>'threadId', c->>'threadId');
        v_claim text := c->'claim'->>'kind';
        v_owner text := c->'claim'->>'owner';
        v_until text := CASE WHEN (c->'claim'->>'release')::boolean THEN NULL ELSE c->'claim'->>'until' END;
        ${fenceEnd ? `v_now text := CASE WHEN c->>'kind' = 'renew' THEN c->>'now' ELSE c->'claim'->>'now' END;` : ''}
        v_from integer := coalesce((c->>'messagesFrom')::integer, 0);
        v_stored integer := coalesce((c->>'storedMessages')::integer, 0);
        v_saved record;
      BEGIN
        IF v_kind = 'create' THEN
          INSERT INTO ${t('threads')} ("thread_id", "workflow_id", "workflow_version", "status", "channel", "version", "epoch", "lease_owner", "lease_until", "state", "created_at", "updated_at")
            VALUES (v_id, v_row->>'workflowId', v_row->>'workflowVersion', v_row->>'status', v_row->>'channel', 1, (v_row->>'epoch')::integer,
              v_row->>'leaseOwner', v_row->>'leaseUntil', v_row->>'state', v_row->>'createdAt', v_row->>'updatedAt')
            ON CONFLICT ("thread_id") DO NOTHING
            RETURNING "version", "epoch", "lease_owner", "lease_until" INTO v_saved;
          IF NOT FOUND THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-exists', 'threadId', v_id)); END IF;
        ELSIF v_kind = 'renew' OR v_kind = 'release' THEN
          UPDATE ${t('threads')} SET
              "lease_owner" = CASE WHEN v_kind = 'renew' THEN "lease_owner" END,
              "lease_until" = CASE WHEN v_kind = 'renew' THEN c->>'until' END
            WHERE "thread_id" = v_id AND "epoch" = (c->>'epoch')::integer AND "lease_owner" = c->>'owner' AND "lease_until" IS NOT NULL${renewRuns}
            RETURNING "version", "epoch", "lease_owner", "lease_until", "updated_at" INTO v_saved;
          IF NOT FOUND THEN${renewEnded}
            SELECT "version", "epoch" INTO v_saved FROM ${t('threads')} WHERE "thread_id" = v_id;
            IF NOT FOUND THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-not-found', 'threadId', v_id)); END IF;
            PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-changed', 'threadId', v_id, 'storedVersion', v_saved.version, 'storedEpoch', v_saved.epoch));
          END IF;
          RETURN jsonb_build_object('version', v_saved.version, 'epoch', v_saved.epoch, 'updatedAt', v_saved.updated_at,
            'leaseOwner', v_saved.lease_owner, 'leaseUntil', v_saved.lease_until);
        ELSE
          -- A save under the fence: the version and the epoch read (and the claim's end); the claim kept, taken or freed.
          UPDATE ${t('threads')} AS s SET
              "workflow_id" = v_row->>'workflowId', "workflow_version" = v_row->>'workflowVersion', "status" = v_row->>'status',
              "channel" = v_row->>'channel', "version" = s."version" + 1, "state" = v_row->>'state',
              "created_at" = v_row->>'createdAt', "updated_at" = v_row->>'updatedAt',
              "epoch" = CASE WHEN v_claim = 'take' THEN s."epoch" + 1 ELSE s."epoch" END,
              "lease_owner" = CASE v_claim WHEN 'keep' THEN s."lease_owner" WHEN 'take' THEN CASE WHEN v_until IS NULL THEN NULL ELSE v_owner END END,
              "lease_until" = CASE v_claim WHEN 'keep' THEN s."lease_until" WHEN 'take' THEN v_until END
            WHERE s."thread_id" = v_id AND s."version" = (c->>'expectedVersion')::integer AND s."epoch" = (v_row->>'epoch')::integer
              AND (v_claim <> 'take' OR s."lease_owner" IS NULL OR s."lease_until" IS NULL OR s."lease_owner" = v_owner
                OR s."lease_until" COLLATE "C" <= (c->'claim'->>'now') COLLATE "C")${saveRuns}
            RETURNING s."version", s."epoch", s."lease_owner", s."lease_until" INTO v_saved;
          IF NOT FOUND THEN
            SELECT "version", "epoch", "lease_owner", "lease_until" INTO v_saved FROM ${t('threads')} WHERE "thread_id" = v_id;
            IF NOT FOUND THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-not-found', 'threadId', v_id)); END IF;
            IF v_saved.version = (c->>'expectedVersion')::integer AND v_saved.epoch = (v_row->>'epoch')::integer AND v_claim = 'take'
                AND v_saved.lease_owner IS NOT NULL AND v_saved.lease_until IS NOT NULL THEN
              PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-busy', 'threadId', v_id,
                'lease', jsonb_build_object('owner', v_saved.lease_owner, 'until', v_saved.lease_until)));
            END IF;${saveEnded}
            PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-changed', 'threadId', v_id, 'storedVersion', v_saved.version, 'storedEpoch', v_saved.epoch));
          END IF;
          -- The messages from messagesFrom on replace the stored ones from there (only those the writer knows of).
          IF v_from < v_stored THEN
            DELETE FROM ${t('messages')} WHERE "thread_id" = v_id AND "position" >= v_from;
          END IF;
        END IF;
        INSERT INTO ${t('messages')} ("thread_id", "position", "message", "digest")
          SELECT v_id, v_from + m.ordinality::integer - 1, m.message, '' FROM jsonb_array_elements_text(c->'messages') WITH ORDINALITY AS m(message, ordinality);
        RETURN jsonb_build_object('version', v_saved.version, 'epoch', v_saved.epoch, 'updatedAt', v_row->>'updatedAt',
          'leaseOwner', v_saved.lease_owner, 'leaseUntil', v_saved.lease_until);
      END $$`;
}
