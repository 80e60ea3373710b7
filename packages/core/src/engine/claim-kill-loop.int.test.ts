import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../crash/__fixtures__/crash-harness.js';
import { positiveInteger, SOAK } from '../crash/__fixtures__/crash-checks.js';
import {
  dropScenarioSchemas,
  disturb,
  ledgerLines,
  newScenario,
  startWorker,
  withStore,
  type SqliteCommits,
  type StoreName,
} from './__fixtures__/claim-workers.js';

/*
 * Random freezes and kills of the process that approves calls and runs them (issue 35, F40, F53, F54):
 * real processes running the built package, a claim of 1 s renewed while the tools work, a
 * ledger outside the database counting the deploys that really happened. The tool checks its
 * signal before its effect and, like a careless tool, returns instead of throwing when it
 * finds it aborted: the engine must not take that return for a run call.
 */

/** Iterations per store: a few in `pnpm test`, 30 in the soak (`pnpm test:soak`). */
const ITERATIONS = positiveInteger('INTERLOCK_KILL_LOOP_ITERATIONS', SOAK ? 30 : 2);
/** Approvers disturbed per iteration before a last one runs undisturbed to the end. */
const DISTURBED = 2;
const THREADS = 2;
const CALLS = 2;
const LEASE_MS = 1_000;

const VARIANTS: { name: string; store: StoreName; commits?: SqliteCommits }[] = [
  { name: 'SQLite (synchronous FULL)', store: 'SQLite' },
  {
    name: 'SQLite with group commit and synchronous NORMAL',
    store: 'SQLite',
    commits: { groupCommit: true, synchronous: 'normal' },
  },
  { name: 'PostgreSQL', store: 'PostgreSQL' },
];

/** The approver: approves each call; for a call whose outcome is unknown, says `done` if the ledger shows it, else `retry`. */
const APPROVER = {
  mode: 'answerLoop',
  resumeStalled: true,
  leaseMs: LEASE_MS,
  effectLast: true,
  returnOnAbort: true,
  toolMsMax: 1_500,
  calls: CALLS,
  giveUpMs: 120_000,
};

function random(below: number): number {
  return Math.floor(Math.random() * below);
}

beforeAll(assertBuilt);
afterAll(dropScenarioSchemas);

describe.each(VARIANTS)(
  'the approving process frozen and killed at random moments on $name, lease 1 s (issue 35)',
  ({ store, commits }) => {
    it(
      `runs every approved call exactly once or asks about it, and completes every thread (F40, F53, F54) [${ITERATIONS} iterations]`,
      async () => {
        const report: string[] = [];
        for (let iteration = 1; iteration <= ITERATIONS; iteration += 1) {
          const scenario = await newScenario(store, commits);
          const started = await startWorker(scenario, { mode: 'startMany', count: THREADS, calls: CALLS }).exit;
          const threadIds = started.result?.threadIds ?? [];
          expect(threadIds, started.stderr).toHaveLength(THREADS);
          const kills: string[] = [];
          for (let disturbed = 1; disturbed <= DISTURBED; disturbed += 1) {
            // A random moment after a tool started; the first approver is also frozen (SIGSTOP) for a
            // random time first, past its claim's end or not, as a busy or stopped process is.
            const plan = {
              delayMs: random(1_500),
              ...(disturbed === 1 ? { freezeMs: random(2_000) } : {}),
              killMs: random(1_500),
            };
            const approver = startWorker(scenario, APPROVER);
            disturb(approver, 'TOOL-STARTED', plan);
            const exit = await approver.exit;
            const frozen = plan.freezeMs === undefined ? '' : `frozen ${plan.freezeMs} ms at ${plan.delayMs} ms, then `;
            kills.push(
              exit.signal === 'SIGKILL'
                ? `${frozen}killed ${plan.killMs} ms later`
                : `${frozen}finished before its kill`,
            );
          }
          const last = await startWorker(scenario, APPROVER).exit;
          const context = `iteration ${iteration} (${kills.join(', ')}): ${JSON.stringify(last.result)} ${last.stderr}`;
          expect(last.result?.error, context).toBeUndefined();

          const state = await withStore(scenario, async (opened) => ({
            threads: await opened.listThreads(),
            calls: await opened.listToolExecutions(),
            recoveries: (await opened.listInteractions()).filter(
              (interaction) => interaction.request.toolApproval?.stage === 'recovery',
            ).length,
          }));
          const ledger = ledgerLines(scenario);
          for (const threadId of threadIds) {
            expect(state.threads.find((thread) => thread.threadId === threadId)?.status, `${threadId} ${context}`).toBe(
              'completed',
            );
            for (let call = 1; call <= CALLS; call += 1) {
              const toolCallId = `deploy-${call}`;
              const ran = ledger.filter((line) => line.startsWith(`deployed ${threadId} ${toolCallId} `));
              // Run exactly once: never lost behind a recorded success, never run twice.
              expect(ran, `${threadId} ${toolCallId} ${context}\nledger:\n${ledger.join('\n')}`).toHaveLength(1);
              const record = state.calls.find(
                (candidate) => candidate.threadId === threadId && candidate.toolCallId === toolCallId,
              );
              expect(record?.status, `${threadId} ${toolCallId} ${context}`).toBe('finished');
              expect(JSON.stringify(record?.outcome), `${threadId} ${toolCallId} ${context}`).not.toContain(
                'not deployed',
              );
            }
          }
          report.push(`iteration ${iteration}: ${kills.join(', ')}; ${state.recoveries} asked about`);
        }
        console.info(`kill loop on ${store}${commits ? ` ${JSON.stringify(commits)}` : ''}:\n  ${report.join('\n  ')}`);
      },
      120_000 * ITERATIONS,
    );
  },
);
