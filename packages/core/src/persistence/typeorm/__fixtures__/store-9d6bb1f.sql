-- A database as the release before issue 34 (9d6bb1f) left it, opened on a plain URL (no
-- schema): the store's tables in public, interlock_commit's helper interlock_apply queueing
-- jobs in "public_jobs" (a schema that was never made), and the job queue installed by
-- graphile-worker 0.16.6 in graphile_worker. One thread of __fixtures__/upgrade-note.toml
-- waits for its question (started with continueIn 'this-process': a thread that continues
-- in workers could not start there). Made with 9d6bb1f's store and graphile-worker 0.16.6's
-- runMigrations, then `pg_dump --no-owner --no-privileges --inserts --no-comments`.
--
-- PostgreSQL database dump
--

\restrict Mk3ZgC5EqabO3mFW38lDJZw2EufsYrTBB7FzrFLJdRW610Bv6Emk8amTD1pJMEu

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: graphile_worker; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA graphile_worker;


--
-- Name: job_spec; Type: TYPE; Schema: graphile_worker; Owner: -
--

CREATE TYPE graphile_worker.job_spec AS (
	identifier text,
	payload json,
	queue_name text,
	run_at timestamp with time zone,
	max_attempts smallint,
	job_key text,
	priority smallint,
	flags text[]
);


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: _private_jobs; Type: TABLE; Schema: graphile_worker; Owner: -
--

CREATE TABLE graphile_worker._private_jobs (
    id bigint NOT NULL,
    job_queue_id integer,
    task_id integer NOT NULL,
    payload json DEFAULT '{}'::json NOT NULL,
    priority smallint DEFAULT 0 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    attempts smallint DEFAULT 0 NOT NULL,
    max_attempts smallint DEFAULT 25 NOT NULL,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    key text,
    locked_at timestamp with time zone,
    locked_by text,
    revision integer DEFAULT 0 NOT NULL,
    flags jsonb,
    is_available boolean GENERATED ALWAYS AS (((locked_at IS NULL) AND (attempts < max_attempts))) STORED NOT NULL,
    CONSTRAINT jobs_key_check CHECK (((length(key) > 0) AND (length(key) <= 512))),
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts >= 1))
);


--
-- Name: add_job(text, json, text, timestamp with time zone, integer, text, integer, text[], text); Type: FUNCTION; Schema: graphile_worker; Owner: -
--

CREATE FUNCTION graphile_worker.add_job(identifier text, payload json DEFAULT NULL::json, queue_name text DEFAULT NULL::text, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, max_attempts integer DEFAULT NULL::integer, job_key text DEFAULT NULL::text, priority integer DEFAULT NULL::integer, flags text[] DEFAULT NULL::text[], job_key_mode text DEFAULT 'replace'::text) RETURNS graphile_worker._private_jobs
    LANGUAGE plpgsql
    AS $$
declare
  v_job "graphile_worker"._private_jobs;
begin
  if (job_key is null or job_key_mode is null or job_key_mode in ('replace', 'preserve_run_at')) then
    select * into v_job
    from "graphile_worker".add_jobs(
      ARRAY[(
        identifier,
        payload,
        queue_name,
        run_at,
        max_attempts::smallint,
        job_key,
        priority::smallint,
        flags
      )::"graphile_worker".job_spec],
      (job_key_mode = 'preserve_run_at')
    )
    limit 1;
    return v_job;
  elsif job_key_mode = 'unsafe_dedupe' then
    -- Ensure all the tasks exist
    insert into "graphile_worker"._private_tasks as tasks (identifier)
    values (add_job.identifier)
    on conflict do nothing;
    -- Ensure all the queues exist
    if add_job.queue_name is not null then
      insert into "graphile_worker"._private_job_queues as job_queues (queue_name)
      values (add_job.queue_name)
      on conflict do nothing;
    end if;
    -- Insert job, but if one already exists then do nothing, even if the
    -- existing job has already started (and thus represents an out-of-date
    -- world state). This is dangerous because it means that whatever state
    -- change triggered this add_job may not be acted upon (since it happened
    -- after the existing job started executing, but no further job is being
    -- scheduled), but it is useful in very rare circumstances for
    -- de-duplication. If in doubt, DO NOT USE THIS.
    insert into "graphile_worker"._private_jobs as jobs (
      job_queue_id,
      task_id,
      payload,
      run_at,
      max_attempts,
      key,
      priority,
      flags
    )
      select
        job_queues.id,
        tasks.id,
        coalesce(add_job.payload, '{}'::json),
        coalesce(add_job.run_at, now()),
        coalesce(add_job.max_attempts::smallint, 25::smallint),
        add_job.job_key,
        coalesce(add_job.priority::smallint, 0::smallint),
        (
          select jsonb_object_agg(flag, true)
          from unnest(add_job.flags) as item(flag)
        )
      from "graphile_worker"._private_tasks as tasks
      left join "graphile_worker"._private_job_queues as job_queues
      on job_queues.queue_name = add_job.queue_name
      where tasks.identifier = add_job.identifier
    on conflict (key)
      -- Bump the updated_at so that there's something to return
      do update set
        revision = jobs.revision + 1,
        updated_at = now()
      returning *
      into v_job;
    if v_job.revision = 0 then
      perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":1}');
    end if;
    return v_job;
  else
    raise exception 'Invalid job_key_mode value, expected ''replace'', ''preserve_run_at'' or ''unsafe_dedupe''.' using errcode = 'GWBKM';
  end if;
end;
$$;


--
-- Name: add_jobs(graphile_worker.job_spec[], boolean); Type: FUNCTION; Schema: graphile_worker; Owner: -
--

CREATE FUNCTION graphile_worker.add_jobs(specs graphile_worker.job_spec[], job_key_preserve_run_at boolean DEFAULT false) RETURNS SETOF graphile_worker._private_jobs
    LANGUAGE plpgsql
    AS $$
begin
  -- Ensure all the tasks exist
  insert into "graphile_worker"._private_tasks as tasks (identifier)
  select distinct spec.identifier
  from unnest(specs) spec
  on conflict do nothing;
  -- Ensure all the queues exist
  insert into "graphile_worker"._private_job_queues as job_queues (queue_name)
  select distinct spec.queue_name
  from unnest(specs) spec
  where spec.queue_name is not null
  on conflict do nothing;
  -- Ensure any locked jobs have their key cleared - in the case of locked
  -- existing job create a new job instead as it must have already started
  -- executing (i.e. it's world state is out of date, and the fact add_job
  -- has been called again implies there's new information that needs to be
  -- acted upon).
  update "graphile_worker"._private_jobs as jobs
  set
    key = null,
    attempts = jobs.max_attempts,
    updated_at = now()
  from unnest(specs) spec
  where spec.job_key is not null
  and jobs.key = spec.job_key
  and is_available is not true;

  -- WARNING: this count is not 100% accurate; 'on conflict' clause will cause it to be an overestimate
  perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":' || array_length(specs, 1)::text || '}');

  -- TODO: is there a risk that a conflict could occur depending on the
  -- isolation level?
  return query insert into "graphile_worker"._private_jobs as jobs (
    job_queue_id,
    task_id,
    payload,
    run_at,
    max_attempts,
    key,
    priority,
    flags
  )
    select
      job_queues.id,
      tasks.id,
      coalesce(spec.payload, '{}'::json),
      coalesce(spec.run_at, now()),
      coalesce(spec.max_attempts, 25),
      spec.job_key,
      coalesce(spec.priority, 0),
      (
        select jsonb_object_agg(flag, true)
        from unnest(spec.flags) as item(flag)
      )
    from unnest(specs) spec
    inner join "graphile_worker"._private_tasks as tasks
    on tasks.identifier = spec.identifier
    left join "graphile_worker"._private_job_queues as job_queues
    on job_queues.queue_name = spec.queue_name
  on conflict (key) do update set
    job_queue_id = excluded.job_queue_id,
    task_id = excluded.task_id,
    payload =
      case
      when json_typeof(jobs.payload) = 'array' and json_typeof(excluded.payload) = 'array' then
        (jobs.payload::jsonb || excluded.payload::jsonb)::json
      else
        excluded.payload
      end,
    max_attempts = excluded.max_attempts,
    run_at = (case
      when job_key_preserve_run_at is true and jobs.attempts = 0 then jobs.run_at
      else excluded.run_at
    end),
    priority = excluded.priority,
    revision = jobs.revision + 1,
    flags = excluded.flags,
    -- always reset error/retry state
    attempts = 0,
    last_error = null,
    updated_at = now()
  where jobs.locked_at is null
  returning *;
end;
$$;


--
-- Name: complete_jobs(bigint[]); Type: FUNCTION; Schema: graphile_worker; Owner: -
--

CREATE FUNCTION graphile_worker.complete_jobs(job_ids bigint[]) RETURNS SETOF graphile_worker._private_jobs
    LANGUAGE sql
    AS $$
  delete from "graphile_worker"._private_jobs as jobs
    where id = any(job_ids)
    and (
      locked_at is null
    or
      locked_at < now() - interval '4 hours'
    )
    returning *;
$$;


--
-- Name: force_unlock_workers(text[]); Type: FUNCTION; Schema: graphile_worker; Owner: -
--

CREATE FUNCTION graphile_worker.force_unlock_workers(worker_ids text[]) RETURNS void
    LANGUAGE sql
    AS $$
update "graphile_worker"._private_jobs as jobs
set locked_at = null, locked_by = null
where locked_by = any(worker_ids);
update "graphile_worker"._private_job_queues as job_queues
set locked_at = null, locked_by = null
where locked_by = any(worker_ids);
$$;


--
-- Name: permanently_fail_jobs(bigint[], text); Type: FUNCTION; Schema: graphile_worker; Owner: -
--

CREATE FUNCTION graphile_worker.permanently_fail_jobs(job_ids bigint[], error_message text DEFAULT NULL::text) RETURNS SETOF graphile_worker._private_jobs
    LANGUAGE sql
    AS $$
  update "graphile_worker"._private_jobs as jobs
    set
      last_error = coalesce(error_message, 'Manually marked as failed'),
      attempts = max_attempts,
      updated_at = now()
    where id = any(job_ids)
    and (
      locked_at is null
    or
      locked_at < NOW() - interval '4 hours'
    )
    returning *;
$$;


--
-- Name: remove_job(text); Type: FUNCTION; Schema: graphile_worker; Owner: -
--

CREATE FUNCTION graphile_worker.remove_job(job_key text) RETURNS graphile_worker._private_jobs
    LANGUAGE plpgsql STRICT
    AS $$
declare
  v_job "graphile_worker"._private_jobs;
begin
  -- Delete job if not locked
  delete from "graphile_worker"._private_jobs as jobs
    where key = job_key
    and (
      locked_at is null
    or
      locked_at < NOW() - interval '4 hours'
    )
  returning * into v_job;
  if not (v_job is null) then
    perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":-1}');
    return v_job;
  end if;
  -- Otherwise prevent job from retrying, and clear the key
  update "graphile_worker"._private_jobs as jobs
  set
    key = null,
    attempts = jobs.max_attempts,
    updated_at = now()
  where key = job_key
  returning * into v_job;
  return v_job;
end;
$$;


--
-- Name: reschedule_jobs(bigint[], timestamp with time zone, integer, integer, integer); Type: FUNCTION; Schema: graphile_worker; Owner: -
--

CREATE FUNCTION graphile_worker.reschedule_jobs(job_ids bigint[], run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, priority integer DEFAULT NULL::integer, attempts integer DEFAULT NULL::integer, max_attempts integer DEFAULT NULL::integer) RETURNS SETOF graphile_worker._private_jobs
    LANGUAGE sql
    AS $$
  update "graphile_worker"._private_jobs as jobs
    set
      run_at = coalesce(reschedule_jobs.run_at, jobs.run_at),
      priority = coalesce(reschedule_jobs.priority::smallint, jobs.priority),
      attempts = coalesce(reschedule_jobs.attempts::smallint, jobs.attempts),
      max_attempts = coalesce(reschedule_jobs.max_attempts::smallint, jobs.max_attempts),
      updated_at = now()
    where id = any(job_ids)
    and (
      locked_at is null
    or
      locked_at < NOW() - interval '4 hours'
    )
    returning *;
$$;


--
-- Name: audit_thread_head(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.audit_thread_head() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
        BEGIN
          INSERT INTO "public"."audit_thread_heads" ("thread_id", "thread_sequence", "hash") VALUES (NEW."thread_id", NEW."thread_sequence", NEW."hash")
            ON CONFLICT ("thread_id") DO UPDATE SET "thread_sequence" = EXCLUDED."thread_sequence", "hash" = EXCLUDED."hash";
          RETURN NEW;
        END $$;


--
-- Name: interlock_apply(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_apply(unit jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
      DECLARE
        v_change jsonb;
        v_thread jsonb;
        v_audit jsonb[] := '{}';
        v_failed text[] := '{}';
        v_due jsonb := '{}';
        v_keys jsonb := '[]';
      BEGIN
        IF unit->'thread' IS NOT NULL THEN v_thread := "public"."interlock_thread_change"(unit->'thread'); END IF;
        FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'interactions', '[]')) LOOP
          IF "public"."interlock_interaction_change"(v_change) THEN v_failed := v_failed || (v_change->>'interactionId'); END IF;
        END LOOP;
        FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'toolCalls', '[]')) LOOP
          PERFORM "public"."interlock_tool_call_change"(v_change);
        END LOOP;
        FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'audit', '[]')) LOOP
          v_audit := v_audit || "public"."interlock_audit_append"(v_change);
        END LOOP;
        FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'globals', '[]')) LOOP
          PERFORM "public"."interlock_global_change"(v_change);
        END LOOP;
        IF unit->'anchor' IS NOT NULL THEN
          v_change := unit->'anchor';
          IF (v_change->>'sequence')::integer <> coalesce((SELECT max("sequence") FROM "public"."audit_anchors"), 0) + 1 THEN
            PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'anchor-exists', 'sequence', (v_change->>'sequence')::integer));
          END IF;
          INSERT INTO "public"."audit_anchors" ("sequence", "at", "through", "digest", "previous_hash", "hash")
            VALUES ((v_change->>'sequence')::integer, v_change->>'at', (v_change->>'through')::integer, v_change->>'digest', v_change->>'previousHash', v_change->>'hash')
            ON CONFLICT DO NOTHING;
          IF NOT FOUND THEN
            PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'anchor-exists', 'sequence', (v_change->>'sequence')::integer));
          END IF;
        END IF;
        FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'remember', '[]')) LOOP
          INSERT INTO "public"."remembered_approvals" ("key", "expires_at") VALUES (v_change->>'key', (v_change->>'expiresAt')::bigint)
            ON CONFLICT ("key") DO UPDATE SET "expires_at" = excluded."expires_at";
        END LOOP;
        INSERT INTO "public"."workflow_definitions" ("workflow_id", "version", "definition", "created_at")
          SELECT d->>'workflowId', d->>'version', d->>'definition', d->>'createdAt' FROM jsonb_array_elements(coalesce(unit->'definitions', '[]')) AS d
          ON CONFLICT DO NOTHING;
        -- The workers' jobs (graphile-worker's add_job: one with the key of a waiting job replaces it).
        FOR v_change IN SELECT value FROM jsonb_array_elements(coalesce(unit->'jobs', '[]')) LOOP
          PERFORM "public_jobs".add_job(identifier => v_change->>'identifier', payload => (v_change->>'payload')::json,
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
            'interlock', jsonb_build_object('queue', 'public_jobs', 'ticket', random(), 'due', v_due, 'keys', v_keys))::text);
        END IF;
        RETURN jsonb_build_object('status', 'committed', 'thread', v_thread, 'audit', to_jsonb(v_audit), 'failed', to_jsonb(v_failed));
      END $$;


--
-- Name: interlock_audit_append(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_audit_append(c jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
      DECLARE
        v_entry jsonb := c->'entry';
        v_thread text := c->'entry'->>'threadId';
        v_head record;
        v_appended jsonb;
      BEGIN
        SELECT "thread_sequence", "hash" INTO v_head FROM "public"."audit_thread_heads" WHERE "thread_id" = v_thread FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO "public"."audit_thread_heads" ("thread_id", "thread_sequence", "hash") VALUES (v_thread, 0, repeat('0', 64)) ON CONFLICT DO NOTHING;
          SELECT "thread_sequence", "hash" INTO v_head FROM "public"."audit_thread_heads" WHERE "thread_id" = v_thread FOR UPDATE;
        END IF;
        INSERT INTO "public"."audit_entries" ("sequence", "thread_sequence", "thread_id", "tool_call_id", "tool_name", "outcome", "decided_by", "rule", "reason",
            "responder", "stage", "original_arguments", "edited_arguments", "tool_definition_hash", "interaction_id", "at", "previous_hash", "hash")
          VALUES (nextval('public.audit_entries_sequence'), v_head.thread_sequence + 1, v_thread, v_entry->>'toolCallId', v_entry->>'toolName', v_entry->>'outcome',
            v_entry->>'decidedBy', v_entry->>'rule', v_entry->>'reason', v_entry->>'responder', v_entry->>'stage', v_entry->>'originalArguments',
            v_entry->>'editedArguments', v_entry->>'toolDefinitionHash', v_entry->>'interactionId', v_entry->>'at', v_head.hash,
            encode(sha256(convert_to(v_head.hash || E'\n' || (v_head.thread_sequence + 1)::text || E'\n' || (c->>'digest'), 'UTF8')), 'hex'))
          RETURNING jsonb_build_object('sequence', "sequence", 'threadSequence', "thread_sequence", 'threadId', "thread_id", 'toolCallId', "tool_call_id",
            'toolName', "tool_name", 'outcome', "outcome", 'decidedBy', "decided_by", 'rule', "rule", 'reason', "reason", 'responder', "responder",
            'stage', "stage", 'originalArguments', "original_arguments", 'editedArguments', "edited_arguments",
            'toolDefinitionHash', "tool_definition_hash", 'interactionId', "interaction_id", 'at', "at", 'previousHash', "previous_hash", 'hash', "hash")
          INTO v_appended;
        RETURN v_appended;
      END $$;


--
-- Name: interlock_commit(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_commit(unit jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
      DECLARE
        v_conflict text;
      BEGIN
        RETURN "public"."interlock_apply"(unit);
      EXCEPTION WHEN SQLSTATE 'IL409' THEN
        GET STACKED DIAGNOSTICS v_conflict = MESSAGE_TEXT;
        RETURN jsonb_build_object('status', 'conflict', 'conflict', v_conflict::jsonb);
      END $$;


--
-- Name: interlock_global_change(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_global_change(c jsonb) RETURNS void
    LANGUAGE plpgsql
    AS $$
      DECLARE
        v_scope text := c->>'scope';
        v_name text := c->>'name';
        v_value text := c->>'value';
      BEGIN
        CASE c->>'kind'
          WHEN 'set' THEN
            INSERT INTO "public"."global_variables" ("workflow_id", "name", "value") VALUES (v_scope, v_name, v_value)
              ON CONFLICT ("workflow_id", "name") DO UPDATE SET "value" = excluded."value";
          WHEN 'set-if-absent' THEN
            INSERT INTO "public"."global_variables" ("workflow_id", "name", "value") VALUES (v_scope, v_name, v_value) ON CONFLICT DO NOTHING;
          WHEN 'delete' THEN
            DELETE FROM "public"."global_variables" WHERE "workflow_id" = v_scope AND "name" = v_name;
          WHEN 'compare-and-set' THEN
            IF c->>'expected' IS NULL THEN
              -- Expected absent (a value stored as undefined counts as absent, as in the in-memory store).
              UPDATE "public"."global_variables" SET "value" = v_value WHERE "workflow_id" = v_scope AND "name" = v_name AND "value" IS NULL;
              IF NOT FOUND THEN
                INSERT INTO "public"."global_variables" ("workflow_id", "name", "value") VALUES (v_scope, v_name, v_value) ON CONFLICT DO NOTHING;
              END IF;
            ELSE
              UPDATE "public"."global_variables" SET "value" = v_value
                WHERE "workflow_id" = v_scope AND "name" = v_name AND "public"."interlock_same_json"("value", c->>'expected');
            END IF;
            IF NOT FOUND THEN
              PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'global-changed', 'scope', v_scope, 'name', v_name));
            END IF;
        END CASE;
      END $$;


--
-- Name: interlock_interaction_change(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_interaction_change(c jsonb) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
      DECLARE
        v_id text := coalesce(c->'row'->>'interactionId', c->>'interactionId');
        v_row jsonb := c->'row';
        v_stored jsonb;
        v_quorum jsonb;
        v_same jsonb;
        v_at text;
      BEGIN
        CASE c->>'kind'
          WHEN 'open' THEN
            -- A question asked again keeps its place among those of its moment (stored_order).
            INSERT INTO "public"."interactions" ("interaction_id", "thread_id", "node_id", "status", "deadline", "request", "response", "failure_reason", "failure_message", "created_at", "updated_at", "stored_order", "quorum")
              VALUES (v_id, v_row->>'threadId', v_row->>'nodeId', v_row->>'status', v_row->>'deadline', v_row->>'request', v_row->>'response',
                v_row->>'failureReason', v_row->>'failureMessage', v_row->>'createdAt', v_row->>'updatedAt', nextval('public.interactions_stored_order'), v_row->>'quorum')
              ON CONFLICT ("interaction_id") DO UPDATE SET "thread_id" = excluded."thread_id", "node_id" = excluded."node_id", "status" = excluded."status",
                "deadline" = excluded."deadline", "request" = excluded."request", "response" = excluded."response", "failure_reason" = excluded."failure_reason",
                "failure_message" = excluded."failure_message", "created_at" = excluded."created_at", "updated_at" = excluded."updated_at", "quorum" = excluded."quorum";
          WHEN 'answer' THEN
            UPDATE "public"."interactions" SET "status" = 'responded', "response" = c->>'response', "updated_at" = c->>'at'
              WHERE "interaction_id" = v_id AND "status" = 'pending';
            IF NOT FOUND THEN
              SELECT jsonb_build_object('interactionId', i."interaction_id", 'threadId', i."thread_id", 'nodeId', i."node_id", 'status', i."status",
      'deadline', i."deadline", 'request', i."request", 'response', i."response", 'failureReason', i."failure_reason",
      'failureMessage', i."failure_message", 'createdAt', i."created_at", 'updatedAt', i."updated_at", 'quorum', i."quorum") INTO v_stored FROM "public"."interactions" i WHERE i."interaction_id" = v_id;
              IF v_stored IS NULL THEN PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'interaction-not-found', 'interactionId', v_id)); END IF;
              PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'interaction-not-pending', 'interaction', v_stored));
            END IF;
          WHEN 'consume' THEN
            UPDATE "public"."interactions" SET "status" = 'processed', "updated_at" = c->>'at' WHERE "interaction_id" = v_id AND "status" = 'responded';
          WHEN 'fail' THEN
            UPDATE "public"."interactions" SET "status" = 'failed', "failure_reason" = c->>'reason', "failure_message" = c->>'message', "updated_at" = c->>'at'
              WHERE "interaction_id" = v_id AND "status" = 'pending';
            RETURN FOUND;
          WHEN 'approve-partially', 'escalate' THEN
            -- The row is locked first: two approvals of one call are counted one after the other.
            SELECT jsonb_build_object('interactionId', i."interaction_id", 'threadId', i."thread_id", 'nodeId', i."node_id", 'status', i."status",
      'deadline', i."deadline", 'request', i."request", 'response', i."response", 'failureReason', i."failure_reason",
      'failureMessage', i."failure_message", 'createdAt', i."created_at", 'updatedAt', i."updated_at", 'quorum', i."quorum") INTO v_stored FROM "public"."interactions" i WHERE i."interaction_id" = v_id FOR UPDATE;
            IF v_stored IS NULL THEN PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'interaction-not-found', 'interactionId', v_id)); END IF;
            IF v_stored->>'status' <> 'pending' THEN
              PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'interaction-not-pending', 'interaction', v_stored));
            END IF;
            v_quorum := coalesce((v_stored->>'quorum')::jsonb, '{"approvals": []}'::jsonb);
            IF c->>'kind' = 'escalate' THEN
              IF v_quorum ? 'escalatedAt' THEN
                PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'quorum-changed', 'interaction', v_stored));
              END IF;
              v_quorum := v_quorum || jsonb_build_object('escalatedAt', c->>'at');
              v_at := c->>'at';
            ELSE
              -- Only the approvals of the same arguments stand (an edit resets the others), as many as were read.
              SELECT coalesce(jsonb_agg(a ORDER BY n), '[]'::jsonb) INTO v_same
                FROM jsonb_array_elements(v_quorum->'approvals') WITH ORDINALITY AS e(a, n)
                WHERE a->>'argumentsHash' = c->'approval'->>'argumentsHash';
              IF jsonb_array_length(v_same) <> (c->>'seen')::integer THEN
                PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'quorum-changed', 'interaction', v_stored));
              END IF;
              -- A responder who approved these arguments keeps their first approval.
              IF EXISTS (SELECT 1 FROM jsonb_array_elements(v_same) AS a WHERE a->>'responder' = c->'approval'->>'responder') THEN
                RETURN false;
              END IF;
              v_quorum := jsonb_set(v_quorum, '{approvals}', v_same || jsonb_build_array(c->'approval'));
              v_at := c->'approval'->>'approvedAt';
            END IF;
            UPDATE "public"."interactions" SET "quorum" = v_quorum::text, "updated_at" = v_at WHERE "interaction_id" = v_id;
        END CASE;
        RETURN false;
      END $$;


--
-- Name: interlock_notify_interactions(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_notify_interactions() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
        BEGIN
          PERFORM pg_notify('interlock_changes', json_build_object(
            'schema', TG_TABLE_SCHEMA, 'table', TG_TABLE_NAME, 'id', NEW."interaction_id", 'threadId', NEW."thread_id", 'status', NEW."status")::text);
          RETURN NULL;
        END $$;


--
-- Name: interlock_notify_threads(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_notify_threads() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
        BEGIN
          PERFORM pg_notify('interlock_changes', json_build_object(
            'schema', TG_TABLE_SCHEMA, 'table', TG_TABLE_NAME, 'id', NEW."thread_id", 'threadId', NEW."thread_id", 'status', NEW."status")::text);
          RETURN NULL;
        END $$;


--
-- Name: interlock_refuse(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_refuse(conflict jsonb) RETURNS void
    LANGUAGE plpgsql
    AS $$
      BEGIN
        RAISE EXCEPTION USING ERRCODE = 'IL409', MESSAGE = conflict::text;
      END $$;


--
-- Name: interlock_same_json(text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_same_json(a text, b text) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE
    AS $$
      BEGIN
        IF a = b THEN RETURN true; END IF;
        IF a ~ '\\u(0000|[dD][89a-fA-F])' OR b ~ '\\u(0000|[dD][89a-fA-F])' THEN RETURN false; END IF;
        RETURN a::jsonb = b::jsonb;
      END $$;


--
-- Name: interlock_thread_change(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_thread_change(c jsonb) RETURNS jsonb
    LANGUAGE plpgsql
    AS $$
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
          INSERT INTO "public"."threads" ("thread_id", "workflow_id", "workflow_version", "status", "channel", "version", "epoch", "lease_owner", "lease_until", "state", "created_at", "updated_at")
            VALUES (v_id, v_row->>'workflowId', v_row->>'workflowVersion', v_row->>'status', v_row->>'channel', 1, (v_row->>'epoch')::integer,
              v_row->>'leaseOwner', v_row->>'leaseUntil', v_row->>'state', v_row->>'createdAt', v_row->>'updatedAt')
            ON CONFLICT ("thread_id") DO NOTHING
            RETURNING "version", "epoch", "lease_owner", "lease_until" INTO v_saved;
          IF NOT FOUND THEN PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'thread-exists', 'threadId', v_id)); END IF;
        ELSIF v_kind = 'renew' OR v_kind = 'release' THEN
          UPDATE "public"."threads" SET
              "lease_owner" = CASE WHEN v_kind = 'renew' THEN "lease_owner" END,
              "lease_until" = CASE WHEN v_kind = 'renew' THEN c->>'until' END
            WHERE "thread_id" = v_id AND "epoch" = (c->>'epoch')::integer AND "lease_owner" = c->>'owner' AND "lease_until" IS NOT NULL
            RETURNING "version", "epoch", "lease_owner", "lease_until", "updated_at" INTO v_saved;
          IF NOT FOUND THEN
            SELECT "version", "epoch" INTO v_saved FROM "public"."threads" WHERE "thread_id" = v_id;
            IF NOT FOUND THEN PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'thread-not-found', 'threadId', v_id)); END IF;
            PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'thread-changed', 'threadId', v_id, 'storedVersion', v_saved.version, 'storedEpoch', v_saved.epoch));
          END IF;
          RETURN jsonb_build_object('version', v_saved.version, 'epoch', v_saved.epoch, 'updatedAt', v_saved.updated_at,
            'leaseOwner', v_saved.lease_owner, 'leaseUntil', v_saved.lease_until);
        ELSE
          -- A save under the fence: the version and the epoch read; the claim kept, taken or freed.
          UPDATE "public"."threads" AS s SET
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
            SELECT "version", "epoch", "lease_owner", "lease_until" INTO v_saved FROM "public"."threads" WHERE "thread_id" = v_id;
            IF NOT FOUND THEN PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'thread-not-found', 'threadId', v_id)); END IF;
            IF v_saved.version = (c->>'expectedVersion')::integer AND v_saved.epoch = (v_row->>'epoch')::integer AND v_claim = 'take'
                AND v_saved.lease_owner IS NOT NULL AND v_saved.lease_until IS NOT NULL THEN
              PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'thread-busy', 'threadId', v_id,
                'lease', jsonb_build_object('owner', v_saved.lease_owner, 'until', v_saved.lease_until)));
            END IF;
            PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'thread-changed', 'threadId', v_id, 'storedVersion', v_saved.version, 'storedEpoch', v_saved.epoch));
          END IF;
          -- The messages from messagesFrom on replace the stored ones from there (only those the writer knows of).
          IF v_from < v_stored THEN
            DELETE FROM "public"."messages" WHERE "thread_id" = v_id AND "position" >= v_from;
          END IF;
        END IF;
        INSERT INTO "public"."messages" ("thread_id", "position", "message", "digest")
          SELECT v_id, v_from + m.ordinality::integer - 1, m.message, '' FROM jsonb_array_elements_text(c->'messages') WITH ORDINALITY AS m(message, ordinality);
        RETURN jsonb_build_object('version', v_saved.version, 'epoch', v_saved.epoch, 'updatedAt', v_row->>'updatedAt',
          'leaseOwner', v_saved.lease_owner, 'leaseUntil', v_saved.lease_until);
      END $$;


--
-- Name: interlock_tool_call_change(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.interlock_tool_call_change(c jsonb) RETURNS void
    LANGUAGE plpgsql
    AS $$
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
            INSERT INTO "public"."tool_executions" AS x ("thread_id", "tool_call_id", "tool_name", "arguments_hash", "arguments", "status", "approved_by", "idempotent", "outcome", "created_at", "updated_at")
              VALUES (v_thread, v_id, v_call->>'toolName', v_call->>'argumentsHash', v_call->>'arguments', 'started', v_call->>'approvedBy',
                (v_call->>'idempotent')::boolean, NULL, v_call->>'createdAt', c->>'at')
              ON CONFLICT ("thread_id", "tool_call_id") DO UPDATE SET "status" = 'started', "updated_at" = excluded."updated_at"
                WHERE x."arguments_hash" = excluded."arguments_hash" AND x."status" = ANY(v_from);
          WHEN 'finish' THEN
            -- A late outcome never overwrites one stored meanwhile.
            UPDATE "public"."tool_executions" SET "status" = 'finished', "outcome" = c->>'outcome', "updated_at" = c->>'at'
              WHERE "thread_id" = v_thread AND "tool_call_id" = v_id AND "status" <> 'finished';
            IF NOT FOUND AND EXISTS (SELECT 1 FROM "public"."tool_executions" WHERE "thread_id" = v_thread AND "tool_call_id" = v_id) THEN RETURN; END IF;
          WHEN 'status' THEN
            UPDATE "public"."tool_executions" SET "status" = c->>'to', "updated_at" = c->>'at'
              WHERE "thread_id" = v_thread AND "tool_call_id" = v_id AND "status" = ANY(v_from);
        END CASE;
        IF NOT FOUND THEN
          SELECT jsonb_build_object('threadId', x."thread_id", 'toolCallId', x."tool_call_id", 'toolName', x."tool_name", 'argumentsHash', x."arguments_hash",
      'arguments', x."arguments", 'status', x."status", 'approvedBy', x."approved_by", 'idempotent', x."idempotent", 'outcome', x."outcome",
      'createdAt', x."created_at", 'updatedAt', x."updated_at") INTO v_stored FROM "public"."tool_executions" x WHERE x."thread_id" = v_thread AND x."tool_call_id" = v_id;
          PERFORM "public"."interlock_refuse"(jsonb_build_object('kind', 'tool-call', 'threadId', v_thread, 'toolCallId', v_id, 'stored', v_stored));
        END IF;
      END $$;


--
-- Name: _private_job_queues; Type: TABLE; Schema: graphile_worker; Owner: -
--

CREATE TABLE graphile_worker._private_job_queues (
    id integer NOT NULL,
    queue_name text NOT NULL,
    locked_at timestamp with time zone,
    locked_by text,
    is_available boolean GENERATED ALWAYS AS ((locked_at IS NULL)) STORED NOT NULL,
    CONSTRAINT job_queues_queue_name_check CHECK ((length(queue_name) <= 128))
);


--
-- Name: _private_known_crontabs; Type: TABLE; Schema: graphile_worker; Owner: -
--

CREATE TABLE graphile_worker._private_known_crontabs (
    identifier text NOT NULL,
    known_since timestamp with time zone NOT NULL,
    last_execution timestamp with time zone
);


--
-- Name: _private_tasks; Type: TABLE; Schema: graphile_worker; Owner: -
--

CREATE TABLE graphile_worker._private_tasks (
    id integer NOT NULL,
    identifier text NOT NULL,
    CONSTRAINT tasks_identifier_check CHECK ((length(identifier) <= 128))
);


--
-- Name: job_queues_id_seq; Type: SEQUENCE; Schema: graphile_worker; Owner: -
--

ALTER TABLE graphile_worker._private_job_queues ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME graphile_worker.job_queues_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: jobs; Type: VIEW; Schema: graphile_worker; Owner: -
--

CREATE VIEW graphile_worker.jobs AS
 SELECT jobs.id,
    job_queues.queue_name,
    tasks.identifier AS task_identifier,
    jobs.priority,
    jobs.run_at,
    jobs.attempts,
    jobs.max_attempts,
    jobs.last_error,
    jobs.created_at,
    jobs.updated_at,
    jobs.key,
    jobs.locked_at,
    jobs.locked_by,
    jobs.revision,
    jobs.flags
   FROM ((graphile_worker._private_jobs jobs
     JOIN graphile_worker._private_tasks tasks ON ((tasks.id = jobs.task_id)))
     LEFT JOIN graphile_worker._private_job_queues job_queues ON ((job_queues.id = jobs.job_queue_id)));


--
-- Name: jobs_id_seq1; Type: SEQUENCE; Schema: graphile_worker; Owner: -
--

ALTER TABLE graphile_worker._private_jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME graphile_worker.jobs_id_seq1
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: migrations; Type: TABLE; Schema: graphile_worker; Owner: -
--

CREATE TABLE graphile_worker.migrations (
    id integer NOT NULL,
    ts timestamp with time zone DEFAULT now() NOT NULL,
    breaking boolean DEFAULT false NOT NULL
);


--
-- Name: tasks_id_seq; Type: SEQUENCE; Schema: graphile_worker; Owner: -
--

ALTER TABLE graphile_worker._private_tasks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME graphile_worker.tasks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: audit_anchors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_anchors (
    sequence integer NOT NULL,
    at text NOT NULL,
    through integer NOT NULL,
    digest text NOT NULL,
    previous_hash text NOT NULL,
    hash text NOT NULL
);


--
-- Name: audit_entries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_entries (
    sequence integer NOT NULL,
    thread_id text NOT NULL,
    tool_call_id text NOT NULL,
    tool_name text NOT NULL,
    outcome text NOT NULL,
    decided_by text NOT NULL,
    rule text NOT NULL,
    reason text NOT NULL,
    responder text,
    stage text NOT NULL,
    original_arguments text NOT NULL,
    edited_arguments text,
    at text NOT NULL,
    previous_hash text NOT NULL,
    hash text NOT NULL,
    tool_definition_hash text,
    interaction_id text,
    thread_sequence integer
);


--
-- Name: audit_entries_sequence; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_entries_sequence
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_head; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_head (
    id integer NOT NULL,
    sequence integer NOT NULL,
    hash text NOT NULL
);


--
-- Name: audit_thread_heads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_thread_heads (
    thread_id text NOT NULL,
    thread_sequence integer NOT NULL,
    hash text NOT NULL
);


--
-- Name: global_variables; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.global_variables (
    workflow_id text NOT NULL,
    name text NOT NULL,
    value text
);


--
-- Name: interactions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.interactions (
    interaction_id text NOT NULL,
    thread_id text NOT NULL,
    node_id text NOT NULL,
    status text NOT NULL,
    deadline text,
    request text NOT NULL,
    response text,
    failure_reason text,
    failure_message text,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    stored_order bigint,
    quorum text
);


--
-- Name: interactions_stored_order; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.interactions_stored_order
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: interlock_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.interlock_migrations (
    id integer NOT NULL,
    "timestamp" bigint NOT NULL,
    name character varying NOT NULL
);


--
-- Name: interlock_migrations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.interlock_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: interlock_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.interlock_migrations_id_seq OWNED BY public.interlock_migrations.id;


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    key text NOT NULL,
    kind text NOT NULL,
    thread_id text NOT NULL,
    workflow_id text NOT NULL,
    interaction_id text,
    run_at text NOT NULL,
    locked_by text,
    locked_until text
);


--
-- Name: messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages (
    thread_id text NOT NULL,
    "position" integer NOT NULL,
    message text NOT NULL,
    digest text NOT NULL
);


--
-- Name: remembered_approvals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.remembered_approvals (
    key text NOT NULL,
    expires_at bigint NOT NULL
);


--
-- Name: threads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.threads (
    thread_id text NOT NULL,
    workflow_id text NOT NULL,
    workflow_version text NOT NULL,
    status text NOT NULL,
    channel text NOT NULL,
    version integer NOT NULL,
    state text NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    lease_owner text,
    lease_until text,
    epoch integer DEFAULT 0 NOT NULL
);


--
-- Name: tool_executions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tool_executions (
    thread_id text NOT NULL,
    tool_call_id text NOT NULL,
    tool_name text NOT NULL,
    arguments_hash text NOT NULL,
    arguments text NOT NULL,
    status text NOT NULL,
    approved_by text NOT NULL,
    idempotent boolean NOT NULL,
    outcome text,
    created_at text NOT NULL,
    updated_at text NOT NULL
);


--
-- Name: workflow_definitions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workflow_definitions (
    workflow_id text NOT NULL,
    version text NOT NULL,
    definition text NOT NULL,
    created_at text NOT NULL
);


--
-- Name: interlock_migrations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.interlock_migrations ALTER COLUMN id SET DEFAULT nextval('public.interlock_migrations_id_seq'::regclass);


--
-- Data for Name: _private_job_queues; Type: TABLE DATA; Schema: graphile_worker; Owner: -
--



--
-- Data for Name: _private_jobs; Type: TABLE DATA; Schema: graphile_worker; Owner: -
--



--
-- Data for Name: _private_known_crontabs; Type: TABLE DATA; Schema: graphile_worker; Owner: -
--



--
-- Data for Name: _private_tasks; Type: TABLE DATA; Schema: graphile_worker; Owner: -
--



--
-- Data for Name: migrations; Type: TABLE DATA; Schema: graphile_worker; Owner: -
--

INSERT INTO graphile_worker.migrations VALUES (1, '2026-11-29 07:32:09.882469+00', true);
INSERT INTO graphile_worker.migrations VALUES (2, '2026-11-29 07:32:09.903721+00', false);
INSERT INTO graphile_worker.migrations VALUES (3, '2026-11-29 07:32:09.917476+00', true);
INSERT INTO graphile_worker.migrations VALUES (4, '2026-11-29 07:32:09.921904+00', false);
INSERT INTO graphile_worker.migrations VALUES (5, '2026-11-29 07:32:09.931578+00', false);
INSERT INTO graphile_worker.migrations VALUES (6, '2026-11-29 07:32:09.936775+00', false);
INSERT INTO graphile_worker.migrations VALUES (7, '2026-11-29 07:32:09.943516+00', false);
INSERT INTO graphile_worker.migrations VALUES (8, '2026-11-29 07:32:09.9461+00', false);
INSERT INTO graphile_worker.migrations VALUES (9, '2026-11-29 07:32:09.951105+00', false);
INSERT INTO graphile_worker.migrations VALUES (10, '2026-11-29 07:32:09.953509+00', false);
INSERT INTO graphile_worker.migrations VALUES (11, '2026-11-29 07:32:09.95506+00', true);
INSERT INTO graphile_worker.migrations VALUES (12, '2026-11-29 07:32:10.007271+00', false);
INSERT INTO graphile_worker.migrations VALUES (13, '2026-11-29 07:32:10.009814+00', true);
INSERT INTO graphile_worker.migrations VALUES (14, '2026-11-29 07:32:10.016539+00', true);
INSERT INTO graphile_worker.migrations VALUES (15, '2026-11-29 07:32:10.022309+00', false);
INSERT INTO graphile_worker.migrations VALUES (16, '2026-11-29 07:32:10.02387+00', true);
INSERT INTO graphile_worker.migrations VALUES (17, '2026-11-29 07:32:10.087699+00', false);
INSERT INTO graphile_worker.migrations VALUES (18, '2026-11-29 07:32:10.095644+00', false);


--
-- Data for Name: audit_anchors; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: audit_entries; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: audit_head; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_head VALUES (1, 0, '');


--
-- Data for Name: audit_thread_heads; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: global_variables; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: interactions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.interactions VALUES ('8e1f5c15-7298-408f-9e78-a8177fd004a4', 'asked-before-the-upgrade', 'ask', 'pending', NULL, '{"nodeId":"ask","operationType":"UPDATE_VARIABLES","prompt":"What should the note say?","timeout":0,"metadata":{},"interactionId":"8e1f5c15-7298-408f-9e78-a8177fd004a4","threadId":"asked-before-the-upgrade","workflowId":"upgrade-note","deadline":null,"session":{"channel":"inbox","sessionId":"asked-before-the-upgrade"},"requestedAt":"2026-11-29T07:32:05.770Z"}', NULL, NULL, NULL, '2026-11-29T07:32:05.770Z', '2026-11-29T07:32:05.770Z', 1, NULL);


--
-- Data for Name: interlock_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.interlock_migrations VALUES (1, 1795305600000, 'CreateStoreTables1795305600000');
INSERT INTO public.interlock_migrations VALUES (2, 1795392000000, 'CreateToolExecutionAndWorkflowTables1795392000000');
INSERT INTO public.interlock_migrations VALUES (3, 1795478400000, 'CreateAuditAndRememberedApprovalTables1795478400000');
INSERT INTO public.interlock_migrations VALUES (4, 1795564800000, 'AddThreadLeases1795564800000');
INSERT INTO public.interlock_migrations VALUES (5, 1795651200000, 'AddClaimEpochAndAuditHead1795651200000');
INSERT INTO public.interlock_migrations VALUES (6, 1795737600000, 'CreateJobsTable1795737600000');
INSERT INTO public.interlock_migrations VALUES (7, 1795824000000, 'NotifyChanges1795824000000');
INSERT INTO public.interlock_migrations VALUES (8, 1795910400000, 'AddAuditToolDefinitionHash1795910400000');
INSERT INTO public.interlock_migrations VALUES (9, 1795996800000, 'AddAuditInteractionId1795996800000');
INSERT INTO public.interlock_migrations VALUES (10, 1796083200000, 'AddThreadAuditChains1796083200000');
INSERT INTO public.interlock_migrations VALUES (11, 1796169600000, 'AddInteractionOrder1796169600000');
INSERT INTO public.interlock_migrations VALUES (12, 1796256000000, 'AddCommitFunction1796256000000');
INSERT INTO public.interlock_migrations VALUES (13, 1796342400000, 'CompactRememberedApprovals1796342400000');
INSERT INTO public.interlock_migrations VALUES (14, 1796428800000, 'AddInteractionQuorum1796428800000');


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: messages; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: remembered_approvals; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: threads; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.threads VALUES ('asked-before-the-upgrade', 'upgrade-note', '1', 'waiting', 'inbox', 1, '{"input":{},"frames":[{"workflowId":"upgrade-note","workflowVersion":"1","definitionHash":"c4e1a35decb3b8fab8b91ba5984c14a1bcce5af90ed43f4242e14b410886a483","cursor":"ask","variables":{},"loops":[]}],"variables":{"note":null},"session":{"sessionId":"asked-before-the-upgrade"},"toolApproval":{"autoApprovedTools":[],"approvalTimeout":30000},"pendingInteractionIds":["8e1f5c15-7298-408f-9e78-a8177fd004a4"],"activeNode":{"workflowId":"upgrade-note","nodeId":"ask","state":{"interactionId":"8e1f5c15-7298-408f-9e78-a8177fd004a4"}},"steps":2}', '2026-11-29T07:32:05.741Z', '2026-11-29T07:32:05.770Z', NULL, NULL, 1);


--
-- Data for Name: tool_executions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: workflow_definitions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.workflow_definitions VALUES ('upgrade-note', '1', '{"id":"upgrade-note","name":"Write a note, asked before the upgrade","version":"1","config":{"timeout":0,"maxSteps":1000,"toolApproval":{"autoApprovedTools":[],"approvalTimeout":30000}},"variables":[{"name":"note","scope":"thread"}],"nodes":[{"id":"start","type":"START","config":{}},{"id":"ask","type":"USER_INTERACTION","config":{"operationType":"UPDATE_VARIABLES","variables":[{"variableName":"note","expression":"{{ input }}"}],"prompt":"What should the note say?","metadata":{}}},{"id":"end","type":"END","config":{"output":"{{ note }}"}}],"edges":[{"from":"start","to":"ask"},{"from":"ask","to":"end"}]}', '2026-11-29T07:32:05.742Z');


--
-- Name: job_queues_id_seq; Type: SEQUENCE SET; Schema: graphile_worker; Owner: -
--

SELECT pg_catalog.setval('graphile_worker.job_queues_id_seq', 1, false);


--
-- Name: jobs_id_seq1; Type: SEQUENCE SET; Schema: graphile_worker; Owner: -
--

SELECT pg_catalog.setval('graphile_worker.jobs_id_seq1', 1, false);


--
-- Name: tasks_id_seq; Type: SEQUENCE SET; Schema: graphile_worker; Owner: -
--

SELECT pg_catalog.setval('graphile_worker.tasks_id_seq', 1, false);


--
-- Name: audit_entries_sequence; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_entries_sequence', 1, false);


--
-- Name: interactions_stored_order; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.interactions_stored_order', 2, true);


--
-- Name: interlock_migrations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.interlock_migrations_id_seq', 14, true);


--
-- Name: _private_job_queues job_queues_pkey1; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker._private_job_queues
    ADD CONSTRAINT job_queues_pkey1 PRIMARY KEY (id);


--
-- Name: _private_job_queues job_queues_queue_name_key; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker._private_job_queues
    ADD CONSTRAINT job_queues_queue_name_key UNIQUE (queue_name);


--
-- Name: _private_jobs jobs_key_key1; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker._private_jobs
    ADD CONSTRAINT jobs_key_key1 UNIQUE (key);


--
-- Name: _private_jobs jobs_pkey1; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker._private_jobs
    ADD CONSTRAINT jobs_pkey1 PRIMARY KEY (id);


--
-- Name: _private_known_crontabs known_crontabs_pkey; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker._private_known_crontabs
    ADD CONSTRAINT known_crontabs_pkey PRIMARY KEY (identifier);


--
-- Name: migrations migrations_pkey; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker.migrations
    ADD CONSTRAINT migrations_pkey PRIMARY KEY (id);


--
-- Name: _private_tasks tasks_identifier_key; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker._private_tasks
    ADD CONSTRAINT tasks_identifier_key UNIQUE (identifier);


--
-- Name: _private_tasks tasks_pkey; Type: CONSTRAINT; Schema: graphile_worker; Owner: -
--

ALTER TABLE ONLY graphile_worker._private_tasks
    ADD CONSTRAINT tasks_pkey PRIMARY KEY (id);


--
-- Name: interlock_migrations PK_bcd2b16ef840bba43856ff397e4; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.interlock_migrations
    ADD CONSTRAINT "PK_bcd2b16ef840bba43856ff397e4" PRIMARY KEY (id);


--
-- Name: audit_anchors pk_audit_anchors; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_anchors
    ADD CONSTRAINT pk_audit_anchors PRIMARY KEY (sequence);


--
-- Name: audit_entries pk_audit_entries; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_entries
    ADD CONSTRAINT pk_audit_entries PRIMARY KEY (sequence);


--
-- Name: audit_head pk_audit_head; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_head
    ADD CONSTRAINT pk_audit_head PRIMARY KEY (id);


--
-- Name: audit_thread_heads pk_audit_thread_heads; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_thread_heads
    ADD CONSTRAINT pk_audit_thread_heads PRIMARY KEY (thread_id);


--
-- Name: global_variables pk_global_variables; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.global_variables
    ADD CONSTRAINT pk_global_variables PRIMARY KEY (workflow_id, name);


--
-- Name: interactions pk_interactions; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.interactions
    ADD CONSTRAINT pk_interactions PRIMARY KEY (interaction_id);


--
-- Name: jobs pk_jobs; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT pk_jobs PRIMARY KEY (key);


--
-- Name: messages pk_messages; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT pk_messages PRIMARY KEY (thread_id, "position");


--
-- Name: remembered_approvals pk_remembered_approvals; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.remembered_approvals
    ADD CONSTRAINT pk_remembered_approvals PRIMARY KEY (key);


--
-- Name: threads pk_threads; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.threads
    ADD CONSTRAINT pk_threads PRIMARY KEY (thread_id);


--
-- Name: tool_executions pk_tool_executions; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tool_executions
    ADD CONSTRAINT pk_tool_executions PRIMARY KEY (thread_id, tool_call_id);


--
-- Name: workflow_definitions pk_workflow_definitions; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workflow_definitions
    ADD CONSTRAINT pk_workflow_definitions PRIMARY KEY (workflow_id, version);


--
-- Name: jobs_main_index; Type: INDEX; Schema: graphile_worker; Owner: -
--

CREATE INDEX jobs_main_index ON graphile_worker._private_jobs USING btree (priority, run_at) INCLUDE (id, task_id, job_queue_id) WHERE (is_available = true);


--
-- Name: jobs_no_queue_index; Type: INDEX; Schema: graphile_worker; Owner: -
--

CREATE INDEX jobs_no_queue_index ON graphile_worker._private_jobs USING btree (priority, run_at) INCLUDE (id, task_id) WHERE ((is_available = true) AND (job_queue_id IS NULL));


--
-- Name: idx_audit_entries_thread_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_audit_entries_thread_id ON public.audit_entries USING btree (thread_id);


--
-- Name: idx_interactions_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_interactions_status ON public.interactions USING btree (status);


--
-- Name: idx_interactions_thread_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_interactions_thread_id ON public.interactions USING btree (thread_id);


--
-- Name: idx_jobs_workflow_run_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_jobs_workflow_run_at ON public.jobs USING btree (workflow_id, run_at);


--
-- Name: idx_threads_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_threads_status ON public.threads USING btree (status);


--
-- Name: idx_tool_executions_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_tool_executions_status ON public.tool_executions USING btree (status);


--
-- Name: audit_entries audit_thread_head; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER audit_thread_head AFTER INSERT ON public.audit_entries FOR EACH ROW WHEN ((new.thread_sequence IS NOT NULL)) EXECUTE FUNCTION public.audit_thread_head();


--
-- Name: interactions interlock_interactions_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER interlock_interactions_changed AFTER INSERT OR UPDATE OF status ON public.interactions FOR EACH ROW EXECUTE FUNCTION public.interlock_notify_interactions();


--
-- Name: threads interlock_threads_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER interlock_threads_changed AFTER INSERT OR UPDATE OF status ON public.threads FOR EACH ROW EXECUTE FUNCTION public.interlock_notify_threads();


--
-- Name: messages fk_messages_thread; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT fk_messages_thread FOREIGN KEY (thread_id) REFERENCES public.threads(thread_id) ON DELETE CASCADE;


--
-- Name: _private_job_queues; Type: ROW SECURITY; Schema: graphile_worker; Owner: -
--

ALTER TABLE graphile_worker._private_job_queues ENABLE ROW LEVEL SECURITY;

--
-- Name: _private_jobs; Type: ROW SECURITY; Schema: graphile_worker; Owner: -
--

ALTER TABLE graphile_worker._private_jobs ENABLE ROW LEVEL SECURITY;

--
-- Name: _private_known_crontabs; Type: ROW SECURITY; Schema: graphile_worker; Owner: -
--

ALTER TABLE graphile_worker._private_known_crontabs ENABLE ROW LEVEL SECURITY;

--
-- Name: _private_tasks; Type: ROW SECURITY; Schema: graphile_worker; Owner: -
--

ALTER TABLE graphile_worker._private_tasks ENABLE ROW LEVEL SECURITY;

--
-- PostgreSQL database dump complete
--

\unrestrict Mk3ZgC5EqabO3mFW38lDJZw2EufsYrTBB7FzrFLJdRW610Bv6Emk8amTD1pJMEu

