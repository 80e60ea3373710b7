import type { MigrationInterface } from 'typeorm';
import { JobsInOneCall1796688000000 } from './1796688000000-jobs-in-one-call.js';
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
 * A cheaper `interlock_commit` (issue 38), PostgreSQL only, with the same answers and
 * refusals. What a commit cost was mostly per statement, not per row: every statement the
 * function ran was an executor started and ended, and every helper a plpgsql call. So
 * `interlock_apply` now:
 * - writes the changes a round trip makes (a thread created or saved, a question asked,
 *   answered or consumed, a tool call started or finished, an audit entry, a global set)
 *   itself, one statement each, instead of calling a helper per change;
 * - walks a unit's lists by index (no query per list, none for a list the unit lacks),
 *   inserts messages only when there are some, and locks or creates an audit chain's head
 *   in one statement where it took two or three;
 * - leaves the rest to the helpers as before (a claim renewed or released, a failure, a
 *   quorum's approvals, globals compared or removed), and, when a fast statement finds its
 *   precondition broken, hands the change to its helper, which writes it or refuses it with
 *   the kind it always did (FenceClaimEnd1796601600000, AddInteractionQuorum1796428800000,
 *   AddCommitFunction1796256000000).
 * And `interlock_commit` plans its statements once per connection (`plan_cache_mode =
 * force_generic_plan`): graphile-worker's `add_jobs` planned three of its statements anew
 * on every call, a third of a commit's time. Its other parts are JobsInOneCall1796688000000's.
 */
export class LeanCommit1796947200000 implements MigrationInterface {
  name = 'LeanCommit1796947200000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(applyFunction(queryRunner, placementOfRunner(queryRunner).jobsSchema));
    await queryRunner.query(
      `ALTER FUNCTION ${qualified(queryRunner, 'interlock_commit')}(jsonb) SET plan_cache_mode = force_generic_plan`,
    );
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    await queryRunner.query(
      `ALTER FUNCTION ${qualified(queryRunner, 'interlock_commit')}(jsonb) RESET plan_cache_mode`,
    );
    // The function as it was (a shipped migration never changes).
    await new JobsInOneCall1796688000000().up(queryRunner);
  }
}

/** `interlock_apply`, writing a round trip's changes itself and queueing jobs in `jobsSchema`. */
function applyFunction(queryRunner: MigrationRunner, jobsSchema: string): string {
  const t = (name: string) => qualified(queryRunner, name);
  const f = (name: string) => qualified(queryRunner, name);
  const sequence = qualified(queryRunner, 'audit_entries_sequence').replaceAll('"', '');
  const storedOrder = qualified(queryRunner, 'interactions_stored_order').replaceAll('"', '');
  return `CREATE OR REPLACE FUNCTION ${f('interlock_apply')}(unit jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      v_list jsonb;
      v_change jsonb;
      v_row jsonb;
      v_id text;
      v_claim text;
      v_owner text;
      v_until text;
      v_now text;
      v_from integer;
      v_saved record;
      v_head record;
      v_thread jsonb;
      v_audit jsonb[] := '{}';
      v_failed text[] := '{}';
      v_i integer;
    BEGIN
      v_change := unit->'thread';
      IF v_change IS NULL THEN
        NULL;
      ELSIF v_change->>'kind' = 'create' THEN
        v_row := v_change->'row';
        v_id := v_row->>'threadId';
        INSERT INTO ${t('threads')} ("thread_id", "workflow_id", "workflow_version", "status", "channel", "version", "epoch", "lease_owner", "lease_until", "state", "created_at", "updated_at")
          VALUES (v_id, v_row->>'workflowId', v_row->>'workflowVersion', v_row->>'status', v_row->>'channel', 1, (v_row->>'epoch')::integer,
            v_row->>'leaseOwner', v_row->>'leaseUntil', v_row->>'state', v_row->>'createdAt', v_row->>'updatedAt')
          ON CONFLICT ("thread_id") DO NOTHING
          RETURNING "version", "epoch", "lease_owner", "lease_until" INTO v_saved;
        IF NOT FOUND THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-exists', 'threadId', v_id)); END IF;
        IF jsonb_array_length(v_change->'messages') > 0 THEN
          INSERT INTO ${t('messages')} ("thread_id", "position", "message", "digest")
            SELECT v_id, m.ordinality::integer - 1, m.message, '' FROM jsonb_array_elements_text(v_change->'messages') WITH ORDINALITY AS m(message, ordinality);
        END IF;
        v_thread := jsonb_build_object('version', v_saved.version, 'epoch', v_saved.epoch, 'updatedAt', v_row->>'updatedAt',
          'leaseOwner', v_saved.lease_owner, 'leaseUntil', v_saved.lease_until);
      ELSIF v_change->>'kind' = 'save' THEN
        -- The save of interlock_thread_change (FenceClaimEnd1796601600000) under the same fence;
        -- when it finds the fence broken, the helper writes it or refuses it as it always did.
        v_row := v_change->'row';
        v_id := v_row->>'threadId';
        v_claim := v_change->'claim'->>'kind';
        v_owner := v_change->'claim'->>'owner';
        v_until := CASE WHEN (v_change->'claim'->>'release')::boolean THEN NULL ELSE v_change->'claim'->>'until' END;
        v_now := v_change->'claim'->>'now';
        UPDATE ${t('threads')} AS s SET
            "workflow_id" = v_row->>'workflowId', "workflow_version" = v_row->>'workflowVersion', "status" = v_row->>'status',
            "channel" = v_row->>'channel', "version" = s."version" + 1, "state" = v_row->>'state',
            "created_at" = v_row->>'createdAt', "updated_at" = v_row->>'updatedAt',
            "epoch" = CASE WHEN v_claim = 'take' THEN s."epoch" + 1 ELSE s."epoch" END,
            "lease_owner" = CASE v_claim WHEN 'keep' THEN s."lease_owner" WHEN 'take' THEN CASE WHEN v_until IS NULL THEN NULL ELSE v_owner END END,
            "lease_until" = CASE v_claim WHEN 'keep' THEN s."lease_until" WHEN 'take' THEN v_until END
          WHERE s."thread_id" = v_id AND s."version" = (v_change->>'expectedVersion')::integer AND s."epoch" = (v_row->>'epoch')::integer
            AND (v_claim <> 'take' OR s."lease_owner" IS NULL OR s."lease_until" IS NULL OR s."lease_owner" = v_owner
              OR s."lease_until" COLLATE "C" <= v_now COLLATE "C")
            AND (v_claim = 'take' OR v_now IS NULL OR (s."lease_until" IS NOT NULL AND s."lease_until" COLLATE "C" > v_now COLLATE "C"))
          RETURNING s."version", s."epoch", s."lease_owner", s."lease_until" INTO v_saved;
        IF FOUND THEN
          v_from := coalesce((v_change->>'messagesFrom')::integer, 0);
          IF v_from < coalesce((v_change->>'storedMessages')::integer, 0) THEN
            DELETE FROM ${t('messages')} WHERE "thread_id" = v_id AND "position" >= v_from;
          END IF;
          IF jsonb_array_length(v_change->'messages') > 0 THEN
            INSERT INTO ${t('messages')} ("thread_id", "position", "message", "digest")
              SELECT v_id, v_from + m.ordinality::integer - 1, m.message, '' FROM jsonb_array_elements_text(v_change->'messages') WITH ORDINALITY AS m(message, ordinality);
          END IF;
          v_thread := jsonb_build_object('version', v_saved.version, 'epoch', v_saved.epoch, 'updatedAt', v_row->>'updatedAt',
            'leaseOwner', v_saved.lease_owner, 'leaseUntil', v_saved.lease_until);
        ELSE
          v_thread := ${f('interlock_thread_change')}(v_change);
        END IF;
      ELSE
        v_thread := ${f('interlock_thread_change')}(v_change);
      END IF;

      v_list := unit->'interactions';
      FOR v_i IN 0 .. coalesce(jsonb_array_length(v_list), 0) - 1 LOOP
        v_change := v_list->v_i;
        CASE v_change->>'kind'
          WHEN 'open' THEN
            -- A question asked again keeps its place among those of its moment (stored_order).
            v_row := v_change->'row';
            INSERT INTO ${t('interactions')} ("interaction_id", "thread_id", "node_id", "status", "deadline", "request", "response", "failure_reason", "failure_message", "created_at", "updated_at", "stored_order", "quorum")
              VALUES (v_row->>'interactionId', v_row->>'threadId', v_row->>'nodeId', v_row->>'status', v_row->>'deadline', v_row->>'request', v_row->>'response',
                v_row->>'failureReason', v_row->>'failureMessage', v_row->>'createdAt', v_row->>'updatedAt', nextval('${storedOrder}'), v_row->>'quorum')
              ON CONFLICT ("interaction_id") DO UPDATE SET "thread_id" = excluded."thread_id", "node_id" = excluded."node_id", "status" = excluded."status",
                "deadline" = excluded."deadline", "request" = excluded."request", "response" = excluded."response", "failure_reason" = excluded."failure_reason",
                "failure_message" = excluded."failure_message", "created_at" = excluded."created_at", "updated_at" = excluded."updated_at", "quorum" = excluded."quorum";
          WHEN 'answer' THEN
            UPDATE ${t('interactions')} SET "status" = 'responded', "response" = v_change->>'response', "updated_at" = v_change->>'at'
              WHERE "interaction_id" = v_change->>'interactionId' AND "status" = 'pending';
            -- Not pending (or not there): the helper refuses it, with the row it finds.
            IF NOT FOUND THEN PERFORM ${f('interlock_interaction_change')}(v_change); END IF;
          WHEN 'consume' THEN
            UPDATE ${t('interactions')} SET "status" = 'processed', "updated_at" = v_change->>'at'
              WHERE "interaction_id" = v_change->>'interactionId' AND "status" = 'responded';
          ELSE
            IF ${f('interlock_interaction_change')}(v_change) THEN v_failed := v_failed || (v_change->>'interactionId'); END IF;
        END CASE;
      END LOOP;

      v_list := unit->'toolCalls';
      FOR v_i IN 0 .. coalesce(jsonb_array_length(v_list), 0) - 1 LOOP
        v_change := v_list->v_i;
        CASE v_change->>'kind'
          WHEN 'start' THEN
            -- New, or stored with the same arguments and a status it may start from.
            v_row := v_change->'call';
            INSERT INTO ${t('tool_executions')} AS x ("thread_id", "tool_call_id", "tool_name", "arguments_hash", "arguments", "status", "approved_by", "idempotent", "outcome", "created_at", "updated_at")
              VALUES (v_row->>'threadId', v_row->>'toolCallId', v_row->>'toolName', v_row->>'argumentsHash', v_row->>'arguments', 'started', v_row->>'approvedBy',
                (v_row->>'idempotent')::boolean, NULL, v_row->>'createdAt', v_change->>'at')
              ON CONFLICT ("thread_id", "tool_call_id") DO UPDATE SET "status" = 'started', "updated_at" = excluded."updated_at"
                WHERE x."arguments_hash" = excluded."arguments_hash" AND coalesce(v_change->'from', '[]') ? x."status";
          WHEN 'finish' THEN
            -- A late outcome never overwrites one stored meanwhile (the helper says which).
            UPDATE ${t('tool_executions')} SET "status" = 'finished', "outcome" = v_change->>'outcome', "updated_at" = v_change->>'at'
              WHERE "thread_id" = v_change->>'threadId' AND "tool_call_id" = v_change->>'toolCallId' AND "status" <> 'finished';
          WHEN 'status' THEN
            UPDATE ${t('tool_executions')} SET "status" = v_change->>'to', "updated_at" = v_change->>'at'
              WHERE "thread_id" = v_change->>'threadId' AND "tool_call_id" = v_change->>'toolCallId' AND coalesce(v_change->'from', '[]') ? "status";
          ELSE
            PERFORM ${f('interlock_tool_call_change')}(v_change);
        END CASE;
        -- Nothing written: the helper decides (a finished call stays as it was; otherwise a refusal with the stored call).
        IF NOT FOUND THEN PERFORM ${f('interlock_tool_call_change')}(v_change); END IF;
      END LOOP;

      -- The head of the thread's chain is locked (created first if need be): appends of one
      -- thread queue there, appends of others never wait. A trigger moves it with the insert.
      v_list := unit->'audit';
      FOR v_i IN 0 .. coalesce(jsonb_array_length(v_list), 0) - 1 LOOP
        v_change := v_list->v_i;
        v_row := v_change->'entry';
        v_id := v_row->>'threadId';
        SELECT "thread_sequence", "hash" INTO v_head FROM ${t('audit_thread_heads')} WHERE "thread_id" = v_id FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO ${t('audit_thread_heads')} ("thread_id", "thread_sequence", "hash") VALUES (v_id, 0, repeat('0', 64))
            ON CONFLICT DO NOTHING RETURNING "thread_sequence", "hash" INTO v_head;
          IF NOT FOUND THEN
            SELECT "thread_sequence", "hash" INTO v_head FROM ${t('audit_thread_heads')} WHERE "thread_id" = v_id FOR UPDATE;
          END IF;
        END IF;
        INSERT INTO ${t('audit_entries')} ("sequence", "thread_sequence", "thread_id", "tool_call_id", "tool_name", "outcome", "decided_by", "rule", "reason",
            "responder", "stage", "original_arguments", "edited_arguments", "tool_definition_hash", "interaction_id", "at", "previous_hash", "hash")
          VALUES (nextval('${sequence}'), v_head.thread_sequence + 1, v_id, v_row->>'toolCallId', v_row->>'toolName', v_row->>'outcome',
            v_row->>'decidedBy', v_row->>'rule', v_row->>'reason', v_row->>'responder', v_row->>'stage', v_row->>'originalArguments',
            v_row->>'editedArguments', v_row->>'toolDefinitionHash', v_row->>'interactionId', v_row->>'at', v_head.hash,
            encode(sha256(convert_to(v_head.hash || E'\\n' || (v_head.thread_sequence + 1)::text || E'\\n' || (v_change->>'digest'), 'UTF8')), 'hex'))
          RETURNING jsonb_build_object('sequence', "sequence", 'threadSequence', "thread_sequence", 'threadId', "thread_id", 'toolCallId', "tool_call_id",
            'toolName', "tool_name", 'outcome', "outcome", 'decidedBy', "decided_by", 'rule', "rule", 'reason', "reason", 'responder', "responder",
            'stage', "stage", 'originalArguments', "original_arguments", 'editedArguments', "edited_arguments",
            'toolDefinitionHash', "tool_definition_hash", 'interactionId', "interaction_id", 'at', "at", 'previousHash', "previous_hash", 'hash', "hash")
          INTO v_change;
        v_audit := v_audit || v_change;
      END LOOP;

      v_list := unit->'globals';
      FOR v_i IN 0 .. coalesce(jsonb_array_length(v_list), 0) - 1 LOOP
        v_change := v_list->v_i;
        IF v_change->>'kind' = 'set' THEN
          INSERT INTO ${t('global_variables')} ("workflow_id", "name", "value") VALUES (v_change->>'scope', v_change->>'name', v_change->>'value')
            ON CONFLICT ("workflow_id", "name") DO UPDATE SET "value" = excluded."value";
        ELSE
          PERFORM ${f('interlock_global_change')}(v_change);
        END IF;
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
