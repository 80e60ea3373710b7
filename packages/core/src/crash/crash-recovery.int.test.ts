import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashArguments, type InteractionRecord } from '../index.js';
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
  runWorker,
  startWorker,
  threadOf,
  type Run,
  type RunState,
  type StoreName,
  type WorkerResult,
} from './__fixtures__/crash-harness.js';

// Crash tests (issue 4): a child process runs the built package and dies by SIGKILL at a
// named failpoint (INTERLOCK_CRASH_AT), right after a store call, or at a random moment;
// new processes then open the same database and finish the thread as a person would. The
// witness of every tool effect is a file outside the database: it says what really
// happened, whatever the store says. CRASH_REPEAT and CRASH_RANDOM_RUNS set how often.

/** How many times each named point is crashed, per database. */
const REPEAT = positiveInteger('CRASH_REPEAT', 3);
/** How many random kills per database. */
const RANDOM_RUNS = positiveInteger('CRASH_RANDOM_RUNS', 10);
/** The jobs (threads) each server process of the random-kill loop adds to its queue. */
const QUEUE = ['job-1', 'job-2', 'job-3', 'job-4', 'job-5'];
const STORES: StoreName[] = ['SQLite', 'PostgreSQL'];

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, not ${process.env[name]}`);
  return value;
}

beforeAll(assertBuilt);
afterAll(dropRunSchemas);

/** Runs a worker that must die by SIGKILL: at the failpoint `point`, or where its config says. */
async function crashWorker(run: Run, config: Record<string, unknown>, point?: string): Promise<void> {
  const { signal, code, result, stderr } = await startWorker(run, config, point === undefined ? {} : { crashAt: point })
    .exit;
  expect(
    { signal, code, printed: result, stderr },
    `the worker should have died at ${point ?? JSON.stringify(config)}`,
  ).toMatchObject({
    signal: 'SIGKILL',
    code: null,
    printed: undefined,
  });
}

/**
 * Promise 1: every effect in the witness has a stored approval of that tool bound to the hash
 * of exactly the arguments it ran with; a charge was approved by a person who said yes.
 */
function expectEveryEffectApproved(state: RunState): void {
  for (const line of state.witness) {
    const [effect, threadId = '', toolCallId = '', argument = ''] = line.split(' ');
    const record = execution(state, threadId, toolCallId);
    const [toolName, args] =
      effect === 'charged' ? ['charge', { amount: Number(argument) }] : ['lookup', { customer: argument }];
    expect(record, `the effect "${line}" has a stored approval`).toMatchObject({
      toolName,
      argumentsHash: hashArguments(args),
      arguments: args,
    });
    if (toolName !== 'charge') continue;
    expect(record?.approvedBy, line).toMatch(/^person/);
    const approvals = questions(state, threadId, toolCallId, 'execution');
    expect(
      approvals.map((interaction) => ({ status: interaction.status, input: interaction.response?.input })),
      `the person's approval of "${line}"`,
    ).toContainEqual({ status: 'processed', input: { approved: true } });
  }
}

/**
 * What holds at the end of every named-point run: the thread completed with the person's note
 * and tells the model both calls succeeded; the model was asked twice in all (promise 4: never
 * again for a stored turn); the person was asked once per decision (promise 4) and nothing
 * waits; every effect was approved (promise 1).
 */
function expectFinishedOnce(state: RunState, run: Run, note: string, charges: number): void {
  const thread = threadOf(state, run.threadId);
  expect({ status: thread.status, output: thread.output }).toEqual({ status: 'completed', output: note });
  const told = thread.conversation
    .filter((message) => message.role === 'tool')
    .map((message) => `${message.toolCallId} ${message.content.split(' ')[0]}`);
  expect(told).toEqual(['charge-1 [SUCCESS]', 'lookup-1 [SUCCESS]']);
  expect(state.modelCalls).toEqual([`model-call ${run.threadId}`, `model-call ${run.threadId}`]);
  expect(questions(state, run.threadId, 'charge-1', 'execution')).toHaveLength(1);
  expect(questions(state, run.threadId, 'lookup-1')).toHaveLength(0);
  expect(questions(state, run.threadId, null).map((interaction) => interaction.status)).toEqual(['processed']);
  expect(pendingOf(state, run.threadId)).toEqual([]);
  expect(chargesOf(state, run.threadId)).toEqual(
    Array.from({ length: charges }, () => `charged ${run.threadId} charge-1 42`),
  );
  expect(execution(state, run.threadId, 'charge-1')).toMatchObject({
    status: 'finished',
    argumentsHash: hashArguments({ amount: 42 }),
  });
  expectEveryEffectApproved(state);
}

/**
 * No lost answer: every question still pending, and every answer stored but not yet applied,
 * belongs to a thread that waits on it (and so will apply it when it goes on).
 */
function expectNoLostAnswer(state: RunState, context: string): void {
  const unawaited = state.interactions.filter((interaction) => {
    if (interaction.status !== 'pending' && interaction.status !== 'responded') return false;
    const thread = state.threads.find((candidate) => candidate.threadId === interaction.threadId);
    return !thread?.pendingInteractionIds.includes(interaction.interactionId);
  });
  expect(
    unawaited.map((interaction) => ({
      threadId: interaction.threadId,
      nodeId: interaction.nodeId,
      status: interaction.status,
      toolCallId: interaction.request.toolApproval?.toolCallId,
    })),
    `questions or answers that no thread waits for, ${context}`,
  ).toEqual([]);
}

/** Approves the charge. */
const APPROVE = { approved: true };

/**
 * Starts the thread in a worker where a person answers its questions as they come (`answers`),
 * and kills it at `point`.
 */
function crashSession(run: Run, answers: unknown[], point: string): Promise<void> {
  return crashWorker(run, { mode: 'start', answers }, point);
}

function person(
  run: Run,
  options: { note: string; recovery?: 'done' | 'retry'; repeatAnswers?: string[] },
): Promise<WorkerResult> {
  return runWorker(run, { mode: 'person', person: options });
}

function approvalOf(state: RunState, run: Run): InteractionRecord {
  const [approval] = questions(state, run.threadId, 'charge-1', 'execution');
  if (!approval) throw new Error(`thread ${run.threadId} never asked about charge-1`);
  return approval;
}

/** What each step of the person's worker answered (the stage of an approval, else the operation), or `resume`. */
function stepsOf(result: WorkerResult): string[] {
  return (result.steps ?? []).map((step) => step.stage ?? step.operationType ?? step.action);
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
          expect(execution(crashed, run.threadId, 'charge-1')).toMatchObject({
            status: 'approved',
            argumentsHash: hashArguments({ amount: 42 }),
          });
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

/** Two processes resume the same thread: at the same moment, or the second right after the first stored its claim. */
const RACES = [
  { race: 'at the same moment', secondGoes: 'when both are ready' },
  { race: 'the second just after the first claimed it', secondGoes: 'when the first claimed it' },
] as const;

describe.concurrent.each(STORES)('more kills on %s (issue 4)', (storeName) => {
  it.each(RACES)(
    'lets only one of two processes that resume a thread $race take it forward, and runs its call once',
    async ({ race, secondGoes }) => {
      const run = await newRun(storeName);
      await crashSession(run, [APPROVE], 'interaction:answer-stored');

      // Both processes open the store first, and resume only when told to go.
      let ready = 0;
      const bothReady = () => {
        ready += 1;
        if (ready < 2) return;
        first.go();
        if (secondGoes === 'when both are ready') second.go();
      };
      const first = startWorker(
        run,
        { mode: 'resume', waitForGo: true },
        { onReady: bothReady, onClaimed: () => second.go() },
      );
      const second = startWorker(run, { mode: 'resume', waitForGo: true }, { onReady: bothReady });
      const exits = await Promise.all([first.exit, second.exit]);
      const results = exits.map((exit) => exit.result);
      const summary = JSON.stringify(results.map((result) => result?.error ?? result?.outcome));
      expect(exits.map((exit) => exit.signal)).toEqual([null, null]);
      // Each one took the thread forward (it then waits for the note) or was refused; a race never fails the thread.
      for (const result of results) {
        expect(result?.outcome?.status ?? result?.error?.code, `${race}: ${summary}`).toMatch(
          /^(waiting|THREAD_BUSY|STORE_CONFLICT)$/,
        );
      }
      const refused = results.filter((result) => result?.error !== undefined);
      // Told to go together, one is refused, unless the first ran its whole turn (the call,
      // then the wait for the note) before the second even read the thread: then the second
      // only finds it waiting again, on the same question.
      const oneAfterTheOther =
        refused.length === 0 && new Set(results.map((result) => JSON.stringify(result?.outcome))).size === 1;
      if (secondGoes === 'when both are ready' && !oneAfterTheOther)
        expect(refused, `${race}: ${summary}`).toHaveLength(1);
      else expect(refused.length, `${race}: ${summary}`).toBeLessThanOrEqual(1);

      const state = await inspect(run);
      expect(threadOf(state, run.threadId).status, summary).toBe('waiting');
      expect(chargesOf(state, run.threadId)).toHaveLength(1);
      await person(run, { note: 'paid' });
      expectFinishedOnce(await inspect(run), run, 'paid', 1);
    },
    30_000,
  );

  it.each([
    { question: 'an approval question', answers: [], nth: 1 },
    { question: "a node's question", answers: [APPROVE], nth: 2 },
  ])(
    'never shows $question stored just before the kill, before the thread recorded that it waits on it: the thread asks once more, and that answer counts',
    async ({ answers, nth }) => {
      const run = await newRun(storeName);
      // No failpoint sits between storing a question and the checkpoint that says the thread waits
      // on it: the worker's store dies right after the question is written.
      await crashWorker(run, { mode: 'start', answers, killAfterStoreCall: `createInteraction:${nth}` });
      expect(pendingOf(await inspect(run), run.threadId)).toHaveLength(1);

      // The orphan is not offered to anybody (interlock.pending() hides it, respond() refuses it):
      // the person resumes the thread, which asks again, once; that answer counts.
      const finished = await person(run, { note: 'paid' });
      expect(stepsOf(finished)).toEqual(
        nth === 1 ? ['resume', 'execution', 'UPDATE_VARIABLES'] : ['resume', 'UPDATE_VARIABLES'],
      );
      const state = await inspect(run);
      expectNoLostAnswer(state, 'after the restart');
      const thread = threadOf(state, run.threadId);
      expect({ status: thread.status, output: thread.output }).toEqual({ status: 'completed', output: 'paid' });
      expect(chargesOf(state, run.threadId)).toEqual([`charged ${run.threadId} charge-1 42`]);
      const ofThread = state.interactions.filter((interaction) => interaction.threadId === run.threadId);
      const retired = ofThread.filter((interaction) => interaction.status === 'failed');
      expect(retired.map((interaction) => interaction.failureMessage)).toEqual([expect.stringContaining('superseded')]);
      expect(
        ofThread.filter((interaction) => interaction.status !== 'failed').map((interaction) => interaction.status),
      ).toEqual(nth === 1 ? ['processed', 'processed'] : ['processed', 'processed']);
    },
    30_000,
  );
});

describe.concurrent.each(STORES)('a server killed at random moments on %s (issue 4)', (storeName) => {
  it(
    `loses no thread and no answer and runs no call twice [${RANDOM_RUNS} random kills]`,
    async () => {
      // One database: each server process takes on what the killed one left, then starts new
      // jobs, and is killed in turn; so kills land in recovery too. A clean process ends it.
      const run = await newRun(storeName);
      const jobs: string[] = [];
      const report: string[] = [];
      for (let index = 1; index <= RANDOM_RUNS; index += 1) {
        jobs.push(...QUEUE.map((job) => `kill-${index}-${job}`));
        const delay = Math.floor(Math.random() * 301);
        const context = `after kill ${index} at ${delay} ms`;
        const killed = await startWorker(run, { mode: 'auto', threadIds: jobs }, { killAfterMs: delay }).exit;
        const crashed = await inspect(run);
        const done = crashed.threads.filter((thread) => thread.status === 'completed').length;
        report.push(
          `kill ${index} at ${delay} ms: ${killed.signal === 'SIGKILL' ? 'killed' : 'finished first'}, ${done}/${jobs.length} jobs done`,
        );
        // A kill never fails or cancels a thread (it stays resumable) and never doubles an effect.
        expect(
          crashed.threads.filter((thread) => !['running', 'waiting', 'completed'].includes(thread.status)),
          context,
        ).toEqual([]);
        for (const thread of crashed.threads)
          expect(chargesOf(crashed, thread.threadId).length, `${thread.threadId} ${context}`).toBeLessThanOrEqual(1);
        expectEveryEffectApproved(crashed);
      }

      const restarted = await runWorker(run, { mode: 'auto', threadIds: jobs });
      expect(restarted.outcomes?.map((outcome) => outcome.status)).toEqual(jobs.map(() => 'completed'));
      const state = await inspect(run);
      expectNoLostAnswer(state, `after ${RANDOM_RUNS} kills (${report.join('; ')})`);
      for (const threadId of jobs) {
        const thread = threadOf(state, threadId);
        expect({ status: thread.status, output: thread.output }, threadId).toEqual({
          status: 'completed',
          output: 'auto note',
        });
        expect(chargesOf(state, threadId), threadId).toEqual([`charged ${threadId} charge-1 42`]);
        // A question stored just before a kill, before the thread waited on it, is retired, never answered.
        const asked = questions(state, threadId, 'charge-1', 'execution');
        expect(
          asked.filter((interaction) => interaction.status !== 'failed'),
          threadId,
        ).toHaveLength(1);
        for (const retired of asked.filter((interaction) => interaction.status === 'failed')) {
          expect(retired.failureMessage, threadId).toContain('superseded');
        }
        expect(
          questions(state, threadId, null)
            .filter((interaction) => interaction.status !== 'failed')
            .map((interaction) => interaction.response?.input),
          threadId,
        ).toEqual(['auto note']);
        expect(execution(state, threadId, 'charge-1')?.status, threadId).toBe('finished');
      }
      expectEveryEffectApproved(state);
      console.info(`random kills on ${storeName}:\n  ${report.join('\n  ')}`);
    },
    10_000 * RANDOM_RUNS,
  );
});
