import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../index.js';
import {
  APPROVE,
  crashSession,
  expectFinishedOnce,
  person,
  positiveInteger,
  SOAK,
  stepsOf,
  STORES,
} from './__fixtures__/crash-checks.js';
import {
  assertBuilt,
  chargesOf,
  dropRunSchemas,
  execution,
  inspect,
  lookupsOf,
  newRun,
  pendingOf,
  questions,
  threadOf,
  type Run,
  type RunState,
  type WorkerResult,
} from './__fixtures__/crash-harness.js';

// Crash tests (issue 4): a child process runs the built package and dies by SIGKILL at a
// named failpoint (INTERLOCK_CRASH_AT), right after a store call, or at a random moment;
// new processes then open the same database and finish the thread as a person would. The
// witness of every tool effect is a file outside the database: it says what really
// happened, whatever the store says. CRASH_REPEAT and CRASH_RANDOM_RUNS set how often.
// The named points are here; the races, the kills after a store call and the random kills
// are in crash-recovery-more-kills.int.test.ts.

/** How many times each named point is crashed, per database: each case once, more in the soak (`pnpm test:soak`). */
const REPEAT = positiveInteger('CRASH_REPEAT', SOAK ? 10 : 1);

beforeAll(assertBuilt);
afterAll(dropRunSchemas);

function approvalOf(state: RunState, run: Run): InteractionRecord {
  const [approval] = questions(state, run.threadId, 'charge-1', 'execution');
  if (!approval) throw new Error(`thread ${run.threadId} never asked about charge-1`);
  return approval;
}

function expectOutcomeUnknownReported(result: WorkerResult, toolCallId: string): void {
  expect(result.events).toContainEqual(expect.objectContaining({ type: 'TOOL_CALL_OUTCOME_UNKNOWN', toolCallId }));
}

/** One behaviour checked by crashing at a named point. */
interface PointCase {
  behaviour: string;
  check(run: Run): Promise<void>;
}

/**
 * The named points and what must hold after a kill at each. A point's N crashes are spread
 * over its cases (case i takes repetitions i, i + cases, …), so each point is crashed N times
 * and every case at least once.
 */
const POINTS: { point: string; cases: PointCase[] }[] = [
  {
    point: 'interaction:requested',
    cases: [
      {
        behaviour: 'keeps an approval question asked just before the kill, and answering it finishes the thread',
        async check(run) {
          await crashSession(run, [], 'interaction:requested');
          const crashed = await inspect(run);
          expect(threadOf(crashed, run.threadId).status).toBe('waiting');
          expect(
            pendingOf(crashed, run.threadId).map((interaction) => interaction.request.toolApproval?.toolCallId),
          ).toEqual(['charge-1']);
          expect(execution(crashed, run.threadId, 'charge-1')).toBeUndefined();
          expect(chargesOf(crashed, run.threadId)).toEqual([]);

          expect(stepsOf(await person(run, { note: 'paid' }))).toEqual(['execution', 'UPDATE_VARIABLES']);
          expectFinishedOnce(await inspect(run), run, 'paid', 1);
        },
      },
      {
        behaviour: "keeps a node's question asked just before the kill",
        async check(run) {
          // The approval is the first question this process asks, the note the second.
          await crashSession(run, [APPROVE], 'interaction:requested:2');
          const crashed = await inspect(run);
          expect(threadOf(crashed, run.threadId).status).toBe('waiting');
          expect(pendingOf(crashed, run.threadId).map((interaction) => interaction.nodeId)).toEqual(['confirm']);

          expect(stepsOf(await person(run, { note: 'paid' }))).toEqual(['UPDATE_VARIABLES']);
          expectFinishedOnce(await inspect(run), run, 'paid', 1);
        },
      },
    ],
  },
  {
    point: 'interaction:answer-stored',
    cases: [
      {
        behaviour:
          'applies an approval stored just before the kill without asking again, and answers a second answer "already answered"',
        async check(run) {
          await crashSession(run, [APPROVE], 'interaction:answer-stored');
          const crashed = await inspect(run);
          const approval = approvalOf(crashed, run);
          expect(approval.status).toBe('responded');
          expect(threadOf(crashed, run.threadId)).toMatchObject({
            status: 'waiting',
            pendingInteractionIds: [approval.interactionId],
          });
          expect(chargesOf(crashed, run.threadId)).toEqual([]);

          const finished = await person(run, { note: 'paid', repeatAnswers: [approval.interactionId] });
          expect(finished.repeated).toEqual([{ interactionId: approval.interactionId, status: 'already_answered' }]);
          // Nothing waits for the person: a plain resume applies the stored answer.
          expect(stepsOf(finished)).toEqual(['resume', 'UPDATE_VARIABLES']);
          expectFinishedOnce(await inspect(run), run, 'paid', 1);
        },
      },
      {
        behaviour: "does not lose a node's answer stored just before the kill",
        async check(run) {
          await crashSession(run, [APPROVE, 'paid before the kill'], 'interaction:answer-stored:2');
          const [note] = questions(await inspect(run), run.threadId, null);
          expect(note?.status).toBe('responded');

          const finished = await person(run, { note: 'a second note', repeatAnswers: [note!.interactionId] });
          expect(finished.repeated).toEqual([{ interactionId: note!.interactionId, status: 'already_answered' }]);
          expect(stepsOf(finished)).toEqual(['resume']);
          expectFinishedOnce(await inspect(run), run, 'paid before the kill', 1);
        },
      },
    ],
  },
  {
    point: 'tool:approved',
    cases: [
      {
        behaviour: 'runs a call approved just before the kill once, after the restart',
        async check(run) {
          // The lookup is the first call approved in this process, the charge the second.
          await crashSession(run, [APPROVE], 'tool:approved:2');
          const crashed = await inspect(run);
          // Approved in the thread's value, and not started: no write-ahead record yet (it is
          // written in the commit that starts the call, before its side effect).
          const turn = threadOf(crashed, run.threadId).activeNode?.state as {
            turn?: { calls: { id: string; phase: string; arguments: unknown; finalArguments?: unknown }[] };
          };
          const charge = turn.turn?.calls.find((call) => call.id === 'charge-1');
          expect(charge).toMatchObject({ phase: 'ready' });
          // What it runs with: finalArguments, stored only when they differ from the model's arguments.
          expect(charge?.finalArguments ?? charge?.arguments).toEqual({ amount: 42 });
          expect(execution(crashed, run.threadId, 'charge-1')).toBeUndefined();
          expect(chargesOf(crashed, run.threadId)).toEqual([]);

          expect(stepsOf(await person(run, { note: 'paid' }))).toEqual(['resume', 'UPDATE_VARIABLES']);
          expectFinishedOnce(await inspect(run), run, 'paid', 1);
        },
      },
    ],
  },
  {
    point: 'tool:started',
    cases: [
      {
        behaviour: "never runs a call killed after it started again without a person's say",
        async check(run) {
          await crashSession(run, [APPROVE], 'tool:started:2');
          const crashed = await inspect(run);
          expect(execution(crashed, run.threadId, 'charge-1')?.status).toBe('started');
          expect(chargesOf(crashed, run.threadId)).toEqual([]);

          // The witness shows no charge, so the person says retry, and it runs once.
          const finished = await person(run, { note: 'paid', recovery: 'retry' });
          expectOutcomeUnknownReported(finished, 'charge-1');
          expect(stepsOf(finished)).toEqual(['resume', 'recovery', 'UPDATE_VARIABLES']);
          // The resume asked what became of the call; it did not run it.
          expect(finished.steps?.[1]?.witnessBefore).toEqual([`looked-up ${run.threadId} lookup-1 ada`]);
          expectFinishedOnce(await inspect(run), run, 'paid', 1);
        },
      },
      {
        behaviour: 'runs an idempotent call killed after it started again without asking',
        async check(run) {
          // The lookup is the first call to start: the charge waits for the person.
          await crashSession(run, [], 'tool:started');
          const crashed = await inspect(run);
          expect(execution(crashed, run.threadId, 'lookup-1')?.status).toBe('started');
          expect(lookupsOf(crashed, run.threadId)).toEqual([]);

          expect(stepsOf(await person(run, { note: 'paid' }))).toEqual(['execution', 'UPDATE_VARIABLES']);
          const state = await inspect(run);
          expect(lookupsOf(state, run.threadId)).toEqual([`looked-up ${run.threadId} lookup-1 ada`]);
          expectFinishedOnce(state, run, 'paid', 1);
        },
      },
    ],
  },
  {
    point: 'tool:effect-done',
    cases: [
      {
        behaviour:
          'reports a call killed after its effect and before it finished as unknown, and "done" keeps it at one run',
        async check(run) {
          await crashSession(run, [APPROVE], 'tool:effect-done:2');
          const crashed = await inspect(run);
          expect(execution(crashed, run.threadId, 'charge-1')?.status).toBe('started');
          expect(chargesOf(crashed, run.threadId)).toHaveLength(1);

          const finished = await person(run, { note: 'paid', recovery: 'done' });
          expectOutcomeUnknownReported(finished, 'charge-1');
          expect(stepsOf(finished)).toEqual(['resume', 'recovery', 'UPDATE_VARIABLES']);
          expect(finished.steps?.[1]?.witnessBefore.filter((line) => line.startsWith('charged'))).toHaveLength(1);
          const state = await inspect(run);
          expectFinishedOnce(state, run, 'paid', 1);
          expect(execution(state, run.threadId, 'charge-1')?.outcome?.content).toMatch(
            /^\[SUCCESS\] A person confirmed the call ran/,
          );
        },
      },
      {
        behaviour: 'runs a call killed after its effect a second time only when the person says retry',
        async check(run) {
          await crashSession(run, [APPROVE], 'tool:effect-done:2');
          const finished = await person(run, { note: 'paid', recovery: 'retry' });
          expectOutcomeUnknownReported(finished, 'charge-1');
          expect(stepsOf(finished)).toEqual(['resume', 'recovery', 'UPDATE_VARIABLES']);
          expectFinishedOnce(await inspect(run), run, 'paid', 2);
        },
      },
      {
        behaviour: 'runs an idempotent call killed after its effect again without asking',
        async check(run) {
          await crashSession(run, [], 'tool:effect-done');
          const crashed = await inspect(run);
          expect(execution(crashed, run.threadId, 'lookup-1')?.status).toBe('started');
          expect(lookupsOf(crashed, run.threadId)).toHaveLength(1);

          expect(stepsOf(await person(run, { note: 'paid' }))).toEqual(['execution', 'UPDATE_VARIABLES']);
          const state = await inspect(run);
          expect(lookupsOf(state, run.threadId)).toEqual([
            `looked-up ${run.threadId} lookup-1 ada`,
            `looked-up ${run.threadId} lookup-1 ada`,
          ]);
          expectFinishedOnce(state, run, 'paid', 1);
        },
      },
    ],
  },
  {
    point: 'node:checkpointed',
    cases: [
      {
        behaviour: 'goes on at the next node after a kill between nodes, without asking the model again',
        async check(run) {
          // START is the first node this process completes, the LLM node the second.
          await crashSession(run, [APPROVE], 'node:checkpointed:2');
          const crashed = await inspect(run);
          const thread = threadOf(crashed, run.threadId);
          expect({
            cursor: thread.frames[0]?.cursor,
            activeNode: thread.activeNode,
            pending: thread.pendingInteractionIds,
          }).toEqual({
            cursor: 'confirm',
            activeNode: null,
            pending: [],
          });
          expect(crashed.modelCalls).toHaveLength(2);
          expect(chargesOf(crashed, run.threadId)).toHaveLength(1);

          expect(stepsOf(await person(run, { note: 'paid' }))).toEqual(['resume', 'UPDATE_VARIABLES']);
          expectFinishedOnce(await inspect(run), run, 'paid', 1);
        },
      },
      {
        behaviour: 'runs the next node once after a kill right after the first one',
        async check(run) {
          await crashSession(run, [], 'node:checkpointed');
          const crashed = await inspect(run);
          expect(threadOf(crashed, run.threadId)).toMatchObject({ status: 'running', pendingInteractionIds: [] });
          expect(threadOf(crashed, run.threadId).frames[0]?.cursor).toBe('agent');
          expect(crashed.modelCalls).toEqual([]);

          expect(stepsOf(await person(run, { note: 'paid' }))).toEqual(['resume', 'execution', 'UPDATE_VARIABLES']);
          expectFinishedOnce(await inspect(run), run, 'paid', 1);
        },
      },
    ],
  },
];

describe.concurrent.each(STORES)('a process killed at a named point, then restarted, on %s (issue 4)', (storeName) => {
  for (const { point, cases } of POINTS) {
    cases.forEach(({ behaviour, check }, index) => {
      const repetitions = Math.max(1, Math.ceil((REPEAT - index) / cases.length));
      it(
        `${point}: ${behaviour} [×${repetitions}]`,
        async () => {
          for (let repetition = 0; repetition < repetitions; repetition += 1) await check(await newRun(storeName));
        },
        30_000 * repetitions,
      );
    });
  }
});
