import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../crash/__fixtures__/crash-harness.js';
import {
  dropScenarioSchemas,
  ledgerLines,
  newScenario,
  startWorker,
  withStore,
  type Scenario,
  type SqliteCommits,
  type StoreName,
} from './__fixtures__/claim-workers.js';

/*
 * A process whose event loop freezes while its tool works (issue 35, F40, F53, F54): no
 * timer runs meanwhile, neither its claim's renewal nor its end. Once it thaws, either its
 * claim still ran and the call is run once and recorded, or it ran out and nothing of the
 * call is recorded: the next holder asks a person what became of it. Never an approved call
 * recorded as run that did not run. The tool, like a careless one, returns instead of
 * throwing when it finds its signal aborted.
 */

const LEASE_MS = 1_000;
const GROUP_COMMIT: SqliteCommits = { groupCommit: true, synchronous: 'normal' };

const FREEZES = [
  // Not frozen: the baseline of the renewals' margin.
  { freeze: 'not at all', freezeMs: 0 },
  // Past the renewal due a third of the lease in, not past the claim's end.
  { freeze: 'past its renewal time', freezeMs: 500 },
  // Past the claim's end: nobody else takes the thread meanwhile.
  { freeze: 'past its claim’s end', freezeMs: 1_500 },
];

const VARIANTS: { name: string; store: StoreName; commits?: SqliteCommits }[] = [
  { name: 'SQLite with group commit and synchronous NORMAL', store: 'SQLite', commits: GROUP_COMMIT },
  { name: 'SQLite (synchronous FULL)', store: 'SQLite' },
  { name: 'PostgreSQL', store: 'PostgreSQL' },
];

beforeAll(assertBuilt);
afterAll(dropScenarioSchemas);

describe.each(VARIANTS)(
  'a process frozen while its approved call runs, on $name, lease 1 s (issue 35)',
  ({ store, commits }) => {
    it.each(FREEZES)(
      'frozen $freeze: the call is run once and recorded, or not recorded and asked about, and the margin is printed (F40, F53, F54)',
      async ({ freezeMs }) => {
        const scenario = await newScenario(store, commits);
        // The tool works past a few renewals, then freezes.
        const tool = { effectLast: true, returnOnAbort: true, toolMs: 1_200 };
        const frozen = await startWorker(scenario, {
          mode: 'start',
          threadId: 'frozen-1',
          approve: true,
          leaseMs: LEASE_MS,
          freezeMs,
          measureRenewals: true,
          ...tool,
        }).exit;
        const context = `${JSON.stringify(frozen.result)} ${frozen.stderr}`;
        const ranFirst = ledgerLines(scenario);
        expect(ranFirst.length, context).toBeLessThanOrEqual(1);
        const record = await callRecord(scenario);

        if (frozen.result?.outcome?.status === 'completed') {
          // Its claim held: run once, recorded as run, nobody asked.
          expect(ranFirst, context).toHaveLength(1);
          expect(record, context).toMatchObject({
            status: 'finished',
            outcome: { status: 'SUCCESS', output: 'deployed production' },
          });
          expect(await recoveryQuestions(scenario)).toEqual([]);
        } else {
          // Its claim ran out: the run recorded nothing of the call, not even the release of its
          // claim. The next holder asks about it: the same process, which nobody took the thread
          // from, or else one that resumes it.
          expect(record?.outcome, context).toBeUndefined();
          expect(['started', 'unknown'], context).toContain(record?.status);
          if (frozen.result?.outcome?.status !== 'waiting') {
            expect(frozen.result?.error?.code, context).toBe('STORE_CONFLICT');
            const taker = await startWorker(scenario, {
              mode: 'resume',
              threadId: 'frozen-1',
              leaseMs: LEASE_MS,
              ...tool,
            }).exit;
            expect(taker.result?.outcome, taker.stderr).toMatchObject({ status: 'waiting' });
          }
          const asked = await recoveryQuestions(scenario);
          expect(asked, context).toHaveLength(1);
          const answered = await startWorker(scenario, {
            mode: 'respond',
            interactionId: asked[0],
            answer: ranFirst.length === 1 ? 'done' : 'retry',
            approve: true,
            leaseMs: LEASE_MS,
            ...tool,
          }).exit;
          expect(answered.result?.outcome, answered.stderr).toMatchObject({ status: 'completed' });
        }
        expect(ledgerLines(scenario), context).toHaveLength(1);
        expect((await callRecord(scenario))?.status).toBe('finished');
        console.info(
          `frozen ${freezeMs} ms on ${store}${commits ? ' (group commit)' : ''}: ${
            frozen.result?.outcome?.status === 'completed' ? 'run once and recorded' : 'not recorded, asked about'
          }; claim left when a renewal came back (ms) ${JSON.stringify(frozen.result?.renewals)}`,
        );
      },
      120_000,
    );
  },
);

async function callRecord(scenario: Scenario) {
  return withStore(scenario, async (store) =>
    (await store.listToolExecutions({ threadId: 'frozen-1' })).find((call) => call.toolCallId === 'deploy-1'),
  );
}

async function recoveryQuestions(scenario: Scenario): Promise<string[]> {
  return withStore(scenario, async (store) =>
    (await store.listInteractions({ threadId: 'frozen-1' }))
      .filter((interaction) => interaction.request.toolApproval?.stage === 'recovery')
      .map((interaction) => interaction.interactionId),
  );
}
