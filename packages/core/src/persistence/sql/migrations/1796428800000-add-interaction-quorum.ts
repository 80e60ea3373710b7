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
 * N-of-M approvals (F51): the approvals a call has while it waits for the others, and when it
 * was escalated, in `interactions.quorum` (JSON; see encodeQuorum in ../record-mapping.ts).
 * On PostgreSQL, `interlock_interaction_change` learns the two changes that write it
 * (`approve-partially`, `escalate`), with the semantics of persistence/quorum-change.ts; its
 * other branches are those of AddCommitFunction1796256000000, with the column added.
 */
export class AddInteractionQuorum1796428800000 implements MigrationInterface {
  name = 'AddInteractionQuorum1796428800000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    const t = (name: string) => qualified(queryRunner, name);
    await queryRunner.query(`ALTER TABLE ${t('interactions')} ADD COLUMN "quorum" text`);
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(interactionChange(queryRunner, true));
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type === 'postgres')
      await queryRunner.query(interactionChange(queryRunner, false));
    await queryRunner.query(`ALTER TABLE ${qualified(queryRunner, 'interactions')} DROP COLUMN "quorum"`);
  }
}

/** `interlock_interaction_change`, with (`quorum`) or without the quorum column and its changes. */
function interactionChange(queryRunner: MigrationRunner, quorum: boolean): string {
  const t = (name: string) => qualified(queryRunner, name);
  const f = (name: string) => qualified(queryRunner, name);
  const storedOrder = qualified(queryRunner, 'interactions_stored_order').replaceAll('"', '');
  const interactionJson = `jsonb_build_object('interactionId', i."interaction_id", 'threadId', i."thread_id", 'nodeId', i."node_id", 'status', i."status",
      'deadline', i."deadline", 'request', i."request", 'response', i."response", 'failureReason', i."failure_reason",
      'failureMessage', i."failure_message", 'createdAt', i."created_at", 'updatedAt', i."updated_at"${quorum ? `, 'quorum', i."quorum"` : ''})`;
  const quorumBranches = `
          WHEN 'approve-partially', 'escalate' THEN
            -- The row is locked first: two approvals of one call are counted one after the other.
            SELECT ${interactionJson} INTO v_stored FROM ${t('interactions')} i WHERE i."interaction_id" = v_id FOR UPDATE;
            IF v_stored IS NULL THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'interaction-not-found', 'interactionId', v_id)); END IF;
            IF v_stored->>'status' <> 'pending' THEN
              PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'interaction-not-pending', 'interaction', v_stored));
            END IF;
            v_quorum := coalesce((v_stored->>'quorum')::jsonb, '{"approvals": []}'::jsonb);
            IF c->>'kind' = 'escalate' THEN
              IF v_quorum ? 'escalatedAt' THEN
                PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'quorum-changed', 'interaction', v_stored));
              END IF;
              v_quorum := v_quorum || jsonb_build_object('escalatedAt', c->>'at');
              v_at := c->>'at';
            ELSE
              -- Only the approvals of the same arguments stand (an edit resets the others), as many as were read.
              SELECT coalesce(jsonb_agg(a ORDER BY n), '[]'::jsonb) INTO v_same
                FROM jsonb_array_elements(v_quorum->'approvals') WITH ORDINALITY AS e(a, n)
                WHERE a->>'argumentsHash' = c->'approval'->>'argumentsHash';
              IF jsonb_array_length(v_same) <> (c->>'seen')::integer THEN
                PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'quorum-changed', 'interaction', v_stored));
              END IF;
              -- A responder who approved these arguments keeps their first approval.
              IF EXISTS (SELECT 1 FROM jsonb_array_elements(v_same) AS a WHERE a->>'responder' = c->'approval'->>'responder') THEN
                RETURN false;
              END IF;
              v_quorum := jsonb_set(v_quorum, '{approvals}', v_same || jsonb_build_array(c->'approval'));
              v_at := c->'approval'->>'approvedAt';
            END IF;
            UPDATE ${t('interactions')} SET "quorum" = v_quorum::text, "updated_at" = v_at WHERE "interaction_id" = v_id;`;
  return `CREATE OR REPLACE FUNCTION ${f('interlock_interaction_change')}(c jsonb) RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        v_id text := coalesce(c->'row'->>'interactionId', c->>'interactionId');
        v_row jsonb := c->'row';
        v_stored jsonb;${quorum ? '\n        v_quorum jsonb;\n        v_same jsonb;\n        v_at text;' : ''}
      BEGIN
        CASE c->>'kind'
          WHEN 'open' THEN
            -- A question asked again keeps its place among those of its moment (stored_order).
            INSERT INTO ${t('interactions')} ("interaction_id", "thread_id", "node_id", "status", "deadline", "request", "response", "failure_reason", "failure_message", "created_at", "updated_at", "stored_order"${quorum ? ', "quorum"' : ''})
              VALUES (v_id, v_row->>'threadId', v_row->>'nodeId', v_row->>'status', v_row->>'deadline', v_row->>'request', v_row->>'response',
                v_row->>'failureReason', v_row->>'failureMessage', v_row->>'createdAt', v_row->>'updatedAt', nextval('${storedOrder}')${quorum ? `, v_row->>'quorum'` : ''})
              ON CONFLICT ("interaction_id") DO UPDATE SET "thread_id" = excluded."thread_id", "node_id" = excluded."node_id", "status" = excluded."status",
                "deadline" = excluded."deadline", "request" = excluded."request", "response" = excluded."response", "failure_reason" = excluded."failure_reason",
                "failure_message" = excluded."failure_message", "created_at" = excluded."created_at", "updated_at" = excluded."updated_at"${quorum ? ', "quorum" = excluded."quorum"' : ''};
          WHEN 'answer' THEN
            UPDATE ${t('interactions')} SET "status" = 'responded', "response" = c->>'response', "updated_at" = c->>'at'
              WHERE "interaction_id" = v_id AND "status" = 'pending';
            IF NOT FOUND THEN
              SELECT ${interactionJson} INTO v_stored FROM ${t('interactions')} i WHERE i."interaction_id" = v_id;
              IF v_stored IS NULL THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'interaction-not-found', 'interactionId', v_id)); END IF;
              PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'interaction-not-pending', 'interaction', v_stored));
            END IF;
          WHEN 'consume' THEN
            UPDATE ${t('interactions')} SET "status" = 'processed', "updated_at" = c->>'at' WHERE "interaction_id" = v_id AND "status" = 'responded';
          WHEN 'fail' THEN
            UPDATE ${t('interactions')} SET "status" = 'failed', "failure_reason" = c->>'reason', "failure_message" = c->>'message', "updated_at" = c->>'at'
              WHERE "interaction_id" = v_id AND "status" = 'pending';
            RETURN FOUND;${quorum ? quorumBranches : ''}
        END CASE;
        RETURN false;
      END $$`;
}
