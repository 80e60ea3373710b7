import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APPROVE,
  crashSession,
  crashWorker,
  expectEveryEffectApproved,
  expectFinishedOnce,
  expectNoLostAnswer,
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
  newRun,
  pendingOf,
  questions,
  runWorker,
  startWorker,
  threadOf,
} from './__fixtures__/crash-harness.js';

// Crash tests (issue 4) beyond the named failpoints (crash-recovery.int.test.ts): two
// processes resuming one thread, a kill right after a store call, and kills at random
// moments of a server working through a queue. CRASH_RANDOM_RUNS sets how many.

/** How many random kills per database: a few, many more in the soak (`pnpm test:soak`). */
const RANDOM_RUNS = positiveInteger('CRASH_RANDOM_RUNS', SOAK ? 40 : 4);
/** The jobs (threads) each server process of the random-kill loop adds to its queue. */
const QUEUE = ['job-1', 'job-2', 'job-3', 'job-4', 'job-5'];

beforeAll(assertBuilt);
afterAll(dropRunSchemas);

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
    { question: 'an approval question', answers: [], nth: 1, rest: ['execution', 'UPDATE_VARIABLES'] },
    { question: "a node's question", answers: [APPROVE], nth: 2, rest: ['UPDATE_VARIABLES'] },
  ])(
    'never leaves $question stored without the thread waiting on it: killed right after storing it, the thread asks it once and that answer counts (F54)',
    async ({ answers, nth, rest }) => {
      const run = await newRun(storeName);
      // The question and the thread's wait on it are one unit of work: the worker's store dies
      // right after the commit that stored the question.
      await crashWorker(run, { mode: 'start', answers, killAfterStoreCall: `commit.opens:${nth}` });
      const killed = await inspect(run);
      expect(pendingOf(killed, run.threadId)).toHaveLength(1);
      expectNoLostAnswer(killed, 'right after the question was stored');

      // The question is offered and answered; nothing is asked twice.
      const finished = await person(run, { note: 'paid' });
      expect(stepsOf(finished)).toEqual(rest);
      const state = await inspect(run);
      expectNoLostAnswer(state, 'after the restart');
      const thread = threadOf(state, run.threadId);
      expect({ status: thread.status, output: thread.output }).toEqual({ status: 'completed', output: 'paid' });
      expect(chargesOf(state, run.threadId)).toEqual([`charged ${run.threadId} charge-1 42`]);
      const ofThread = state.interactions.filter((interaction) => interaction.threadId === run.threadId);
      expect(ofThread.map((interaction) => interaction.status)).toEqual(['processed', 'processed']);
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
