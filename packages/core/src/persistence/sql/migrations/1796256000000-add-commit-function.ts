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
 * The job queue's schema: the store's placement's. (Until issue 34 this migration derived it
 * from the connection on its own, and on a URL without a schema named one that the store
 * never installed; RepairJobQueueSchema1796515200000 puts databases it migrated right.)
 */
function jobsSchema(queryRunner: MigrationRunner): string {
  return placementOfRunner(queryRunner).jobsSchema;
}

/** The functions, helpers first; `interlock_commit` is the one the store calls. */
const FUNCTIONS = [
  'interlock_refuse(jsonb)',
  'interlock_same_json(text, text)',
  'interlock_thread_change(jsonb)',
  'interlock_interaction_change(jsonb)',
  'interlock_tool_call_change(jsonb)',
  'interlock_audit_append(jsonb)',
  'interlock_global_change(jsonb)',
  'interlock_apply(jsonb)',
  'interlock_commit(jsonb)',
];

/**
 * A unit of work in one statement (ADR 0008), PostgreSQL only: `interlock_commit(unit)`
 * applies every change of a unit, checks each precondition where it writes, and returns
 * `{ status: 'committed', thread?, audit, failed }`, or `{ status: 'conflict', conflict }`
 * with nothing of the unit written (a conflict raises inside a subtransaction that the
 * function catches). The unit comes from the store already encoded as rows
 * (persistence/typeorm/postgres-unit.ts); the semantics are the in-memory store's
 * (persistence/memory/memory-transaction.ts). SQLite applies units in TypeScript and skips this.
 */
export class AddCommitFunction1796256000000 implements MigrationInterface {
  name = 'AddCommitFunction1796256000000';

  async up(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    const t = (name: string) => qualified(queryRunner, name);
    const f = (name: string) => qualified(queryRunner, name);
    const sequence = qualified(queryRunner, 'audit_entries_sequence').replaceAll('"', '');
    const storedOrder = qualified(queryRunner, 'interactions_stored_order').replaceAll('"', '');

    await queryRunner.query(`CREATE FUNCTION ${f('interlock_refuse')}(conflict jsonb) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION USING ERRCODE = 'IL409', MESSAGE = conflict::text;
      END $$`);

    // Values are JSON text as JSON.stringify wrote them. Text equal is equal; otherwise jsonb
    // compares them as values (key order aside), unless one holds what jsonb cannot (NUL, a lone surrogate).
    await queryRunner.query(String.raw`CREATE FUNCTION ${f('interlock_same_json')}(a text, b text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
      BEGIN
        IF a = b THEN RETURN true; END IF;
        IF a ~ '\\u(0000|[dD][89a-fA-F])' OR b ~ '\\u(0000|[dD][89a-fA-F])' THEN RETURN false; END IF;
        RETURN a::jsonb = b::jsonb;
      END $$`);

    await queryRunner.query(`CREATE FUNCTION ${f('interlock_thread_change')}(c jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
      DECLARE
        v_kind text := c->>'kind';
        v_row jsonb := c->'row';
        v_id text := coalesce(c->'row'->>'threadId', c->>'threadId');
        v_claim text := c->'claim'->>'kind';
        v_owner text := c->'claim'->>'owner';
        v_until text := CASE WHEN (c->'claim'->>'release')::boolean THEN NULL ELSE c->'claim'->>'until' END;
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
            WHERE "thread_id" = v_id AND "epoch" = (c->>'epoch')::integer AND "lease_owner" = c->>'owner' AND "lease_until" IS NOT NULL
            RETURNING "version", "epoch", "lease_owner", "lease_until", "updated_at" INTO v_saved;
          IF NOT FOUND THEN
            SELECT "version", "epoch" INTO v_saved FROM ${t('threads')} WHERE "thread_id" = v_id;
            IF NOT FOUND THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-not-found', 'threadId', v_id)); END IF;
            PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-changed', 'threadId', v_id, 'storedVersion', v_saved.version, 'storedEpoch', v_saved.epoch));
          END IF;
          RETURN jsonb_build_object('version', v_saved.version, 'epoch', v_saved.epoch, 'updatedAt', v_saved.updated_at,
            'leaseOwner', v_saved.lease_owner, 'leaseUntil', v_saved.lease_until);
        ELSE
          -- A save under the fence: the version and the epoch read; the claim kept, taken or freed.
          UPDATE ${t('threads')} AS s SET
              "workflow_id" = v_row->>'workflowId', "workflow_version" = v_row->>'workflowVersion', "status" = v_row->>'status',
              "channel" = v_row->>'channel', "version" = s."version" + 1, "state" = v_row->>'state',
              "created_at" = v_row->>'createdAt', "updated_at" = v_row->>'updatedAt',
              "epoch" = CASE WHEN v_claim = 'take' THEN s."epoch" + 1 ELSE s."epoch" END,
              "lease_owner" = CASE v_claim WHEN 'keep' THEN s."lease_owner" WHEN 'take' THEN CASE WHEN v_until IS NULL THEN NULL ELSE v_owner END END,
              "lease_until" = CASE v_claim WHEN 'keep' THEN s."lease_until" WHEN 'take' THEN v_until END
            WHERE s."thread_id" = v_id AND s."version" = (c->>'expectedVersion')::integer AND s."epoch" = (v_row->>'epoch')::integer
              AND (v_claim <> 'take' OR s."lease_owner" IS NULL OR s."lease_until" IS NULL OR s."lease_owner" = v_owner
                OR s."lease_until" COLLATE "C" <= (c->'claim'->>'now') COLLATE "C")
            RETURNING s."version", s."epoch", s."lease_owner", s."lease_until" INTO v_saved;
          IF NOT FOUND THEN
            SELECT "version", "epoch", "lease_owner", "lease_until" INTO v_saved FROM ${t('threads')} WHERE "thread_id" = v_id;
            IF NOT FOUND THEN PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-not-found', 'threadId', v_id)); END IF;
            IF v_saved.version = (c->>'expectedVersion')::integer AND v_saved.epoch = (v_row->>'epoch')::integer AND v_claim = 'take'
                AND v_saved.lease_owner IS NOT NULL AND v_saved.lease_until IS NOT NULL THEN
              PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'thread-busy', 'threadId', v_id,
                'lease', jsonb_build_object('owner', v_saved.lease_owner, 'until', v_saved.lease_until)));
            END IF;
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
      END $$`);

    const interactionJson = `jsonb_build_object('interactionId', i."interaction_id", 'threadId', i."thread_id", 'nodeId', i."node_id", 'status', i."status",
      'deadline', i."deadline", 'request', i."request", 'response', i."response", 'failureReason', i."failure_reason",
      'failureMessage', i."failure_message", 'createdAt', i."created_at", 'updatedAt', i."updated_at")`;
    await queryRunner.query(`CREATE FUNCTION ${f('interlock_interaction_change')}(c jsonb) RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        v_id text := coalesce(c->'row'->>'interactionId', c->>'interactionId');
        v_row jsonb := c->'row';
        v_stored jsonb;
      BEGIN
        CASE c->>'kind'
          WHEN 'open' THEN
            -- A question asked again keeps its place among those of its moment (stored_order).
            INSERT INTO ${t('interactions')} ("interaction_id", "thread_id", "node_id", "status", "deadline", "request", "response", "failure_reason", "failure_message", "created_at", "updated_at", "stored_order")
              VALUES (v_id, v_row->>'threadId', v_row->>'nodeId', v_row->>'status', v_row->>'deadline', v_row->>'request', v_row->>'response',
                v_row->>'failureReason', v_row->>'failureMessage', v_row->>'createdAt', v_row->>'updatedAt', nextval('${storedOrder}'))
              ON CONFLICT ("interaction_id") DO UPDATE SET "thread_id" = excluded."thread_id", "node_id" = excluded."node_id", "status" = excluded."status",
                "deadline" = excluded."deadline", "request" = excluded."request", "response" = excluded."response", "failure_reason" = excluded."failure_reason",
                "failure_message" = excluded."failure_message", "created_at" = excluded."created_at", "updated_at" = excluded."updated_at";
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
            RETURN FOUND;
        END CASE;
        RETURN false;
      END $$`);

    const toolCallJson = `jsonb_build_object('threadId', x."thread_id", 'toolCallId', x."tool_call_id", 'toolName', x."tool_name", 'argumentsHash', x."arguments_hash",
      'arguments', x."arguments", 'status', x."status", 'approvedBy', x."approved_by", 'idempotent', x."idempotent", 'outcome', x."outcome",
      'createdAt', x."created_at", 'updatedAt', x."updated_at")`;
    await queryRunner.query(`CREATE FUNCTION ${f('interlock_tool_call_change')}(c jsonb) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        v_call jsonb := c->'call';
        v_thread text := coalesce(c->'call'->>'threadId', c->>'threadId');
        v_id text := coalesce(c->'call'->>'toolCallId', c->>'toolCallId');
        v_from text[] := ARRAY(SELECT jsonb_array_elements_text(coalesce(c->'from', '[]')));
        v_stored jsonb;
      BEGIN
        CASE c->>'kind'
          WHEN 'start' THEN
            -- New, or stored with the same arguments and a status it may start from.
            INSERT INTO ${t('tool_executions')} AS x ("thread_id", "tool_call_id", "tool_name", "arguments_hash", "arguments", "status", "approved_by", "idempotent", "outcome", "created_at", "updated_at")
              VALUES (v_thread, v_id, v_call->>'toolName', v_call->>'argumentsHash', v_call->>'arguments', 'started', v_call->>'approvedBy',
                (v_call->>'idempotent')::boolean, NULL, v_call->>'createdAt', c->>'at')
              ON CONFLICT ("thread_id", "tool_call_id") DO UPDATE SET "status" = 'started', "updated_at" = excluded."updated_at"
                WHERE x."arguments_hash" = excluded."arguments_hash" AND x."status" = ANY(v_from);
          WHEN 'finish' THEN
            -- A late outcome never overwrites one stored meanwhile.
            UPDATE ${t('tool_executions')} SET "status" = 'finished', "outcome" = c->>'outcome', "updated_at" = c->>'at'
              WHERE "thread_id" = v_thread AND "tool_call_id" = v_id AND "status" <> 'finished';
            IF NOT FOUND AND EXISTS (SELECT 1 FROM ${t('tool_executions')} WHERE "thread_id" = v_thread AND "tool_call_id" = v_id) THEN RETURN; END IF;
          WHEN 'status' THEN
            UPDATE ${t('tool_executions')} SET "status" = c->>'to', "updated_at" = c->>'at'
              WHERE "thread_id" = v_thread AND "tool_call_id" = v_id AND "status" = ANY(v_from);
        END CASE;
        IF NOT FOUND THEN
          SELECT ${toolCallJson} INTO v_stored FROM ${t('tool_executions')} x WHERE x."thread_id" = v_thread AND x."tool_call_id" = v_id;
          PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'tool-call', 'threadId', v_thread, 'toolCallId', v_id, 'stored', v_stored));
        END IF;
      END $$`);

    // The head of the thread's chain is locked (created first if need be): appends of one
    // thread queue there, appends of others never wait. A trigger moves it with the insert.
    await queryRunner.query(`CREATE FUNCTION ${f('interlock_audit_append')}(c jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
      DECLARE
        v_entry jsonb := c->'entry';
        v_thread text := c->'entry'->>'threadId';
        v_head record;
        v_appended jsonb;
      BEGIN
        SELECT "thread_sequence", "hash" INTO v_head FROM ${t('audit_thread_heads')} WHERE "thread_id" = v_thread FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO ${t('audit_thread_heads')} ("thread_id", "thread_sequence", "hash") VALUES (v_thread, 0, repeat('0', 64)) ON CONFLICT DO NOTHING;
          SELECT "thread_sequence", "hash" INTO v_head FROM ${t('audit_thread_heads')} WHERE "thread_id" = v_thread FOR UPDATE;
        END IF;
        INSERT INTO ${t('audit_entries')} ("sequence", "thread_sequence", "thread_id", "tool_call_id", "tool_name", "outcome", "decided_by", "rule", "reason",
            "responder", "stage", "original_arguments", "edited_arguments", "tool_definition_hash", "interaction_id", "at", "previous_hash", "hash")
          VALUES (nextval('${sequence}'), v_head.thread_sequence + 1, v_thread, v_entry->>'toolCallId', v_entry->>'toolName', v_entry->>'outcome',
            v_entry->>'decidedBy', v_entry->>'rule', v_entry->>'reason', v_entry->>'responder', v_entry->>'stage', v_entry->>'originalArguments',
            v_entry->>'editedArguments', v_entry->>'toolDefinitionHash', v_entry->>'interactionId', v_entry->>'at', v_head.hash,
            encode(sha256(convert_to(v_head.hash || E'\\n' || (v_head.thread_sequence + 1)::text || E'\\n' || (c->>'digest'), 'UTF8')), 'hex'))
          RETURNING jsonb_build_object('sequence', "sequence", 'threadSequence', "thread_sequence", 'threadId', "thread_id", 'toolCallId', "tool_call_id",
            'toolName', "tool_name", 'outcome', "outcome", 'decidedBy', "decided_by", 'rule', "rule", 'reason', "reason", 'responder', "responder",
            'stage', "stage", 'originalArguments', "original_arguments", 'editedArguments', "edited_arguments",
            'toolDefinitionHash', "tool_definition_hash", 'interactionId', "interaction_id", 'at', "at", 'previousHash', "previous_hash", 'hash', "hash")
          INTO v_appended;
        RETURN v_appended;
      END $$`);

    await queryRunner.query(`CREATE FUNCTION ${f('interlock_global_change')}(c jsonb) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        v_scope text := c->>'scope';
        v_name text := c->>'name';
        v_value text := c->>'value';
      BEGIN
        CASE c->>'kind'
          WHEN 'set' THEN
            INSERT INTO ${t('global_variables')} ("workflow_id", "name", "value") VALUES (v_scope, v_name, v_value)
              ON CONFLICT ("workflow_id", "name") DO UPDATE SET "value" = excluded."value";
          WHEN 'set-if-absent' THEN
            INSERT INTO ${t('global_variables')} ("workflow_id", "name", "value") VALUES (v_scope, v_name, v_value) ON CONFLICT DO NOTHING;
          WHEN 'delete' THEN
            DELETE FROM ${t('global_variables')} WHERE "workflow_id" = v_scope AND "name" = v_name;
          WHEN 'compare-and-set' THEN
            IF c->>'expected' IS NULL THEN
              -- Expected absent (a value stored as undefined counts as absent, as in the in-memory store).
              UPDATE ${t('global_variables')} SET "value" = v_value WHERE "workflow_id" = v_scope AND "name" = v_name AND "value" IS NULL;
              IF NOT FOUND THEN
                INSERT INTO ${t('global_variables')} ("workflow_id", "name", "value") VALUES (v_scope, v_name, v_value) ON CONFLICT DO NOTHING;
              END IF;
            ELSE
              UPDATE ${t('global_variables')} SET "value" = v_value
                WHERE "workflow_id" = v_scope AND "name" = v_name AND ${f('interlock_same_json')}("value", c->>'expected');
            END IF;
            IF NOT FOUND THEN
              PERFORM ${f('interlock_refuse')}(jsonb_build_object('kind', 'global-changed', 'scope', v_scope, 'name', v_name));
            END IF;
        END CASE;
      END $$`);

    await queryRunner.query(`CREATE FUNCTION ${f('interlock_apply')}(unit jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
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
          PERFORM "${jobsSchema(queryRunner)}".add_job(identifier => v_change->>'identifier', payload => (v_change->>'payload')::json,
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
            'interlock', jsonb_build_object('queue', '${jobsSchema(queryRunner)}', 'ticket', random(), 'due', v_due, 'keys', v_keys))::text);
        END IF;
        RETURN jsonb_build_object('status', 'committed', 'thread', v_thread, 'audit', to_jsonb(v_audit), 'failed', to_jsonb(v_failed));
      END $$`);

    // The one statement the store sends: a conflict rolls back the subtransaction, so nothing
    // of the unit is written, and is returned, not raised (the server logs no error for it).
    await queryRunner.query(`CREATE FUNCTION ${f('interlock_commit')}(unit jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
      DECLARE
        v_conflict text;
      BEGIN
        RETURN ${f('interlock_apply')}(unit);
      EXCEPTION WHEN SQLSTATE 'IL409' THEN
        GET STACKED DIAGNOSTICS v_conflict = MESSAGE_TEXT;
        RETURN jsonb_build_object('status', 'conflict', 'conflict', v_conflict::jsonb);
      END $$`);
  }

  async down(queryRunner: MigrationRunner): Promise<void> {
    if (queryRunner.connection.driver.options?.type !== 'postgres') return;
    for (const signature of [...FUNCTIONS].reverse()) {
      const [name, parameters] = signature.split('(') as [string, string];
      await queryRunner.query(`DROP FUNCTION IF EXISTS ${qualified(queryRunner, name)}(${parameters}`);
    }
  }
}
