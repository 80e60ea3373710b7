import { describe, expect, it } from 'vitest';
import { InterlockError } from '../errors/interlock-error.js';
import type { ClaimFence, ICheckpointStore, ThreadRecord } from '../persistence/checkpoint-store.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import type { CommitResult, UnitOfWork } from '../persistence/unit-of-work.js';
import {
  CREATED_AT,
  committed,
  present,
  save,
  threadRecord,
  toolApproval,
} from '../testing/conformance/store-records.js';
import { Run, startCommitted, type RunContext } from './run.js';
import { conflictOf } from './run-store.js';

/*
 * Run's commits and how each can fail (issue 39): refused (the run stops and writes nothing
 * more, except a global that changed: the node retries), the store unavailable (the run
 * stops), the outcome unknown (read back: committed, the run goes on; not, committed again),
 * the claim lost (nothing more is written). Plus the proof of a committed start and renewals.
 */

const NOW = Date.parse(CREATED_AT);
const iso = (ms: number) => new Date(NOW + ms).toISOString();

type Failure = 'unavailable' | 'unknown, committed' | 'unknown, not committed';

/** An in-memory store whose next commit fails as told, counting the units that reached it. */
function flakyStore() {
  const store = new InMemoryCheckpointStore();
  const units: UnitOfWork[] = [];
  let next: Failure | undefined;
  const flaky: ICheckpointStore = new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'commit') return Reflect.get(target, property, receiver) as unknown;
      return async (unit: UnitOfWork): Promise<CommitResult> => {
        const failure = next;
        next = undefined;
        if (failure === 'unavailable') throw new InterlockError('STORE_UNAVAILABLE', 'the database is away');
        units.push(unit);
        if (failure === 'unknown, not committed') throw new InterlockError('STORE_OUTCOME_UNKNOWN', 'cut off');
        const result = await target.commit(unit);
        if (failure === 'unknown, committed') throw new InterlockError('STORE_OUTCOME_UNKNOWN', 'cut off');
        return result;
      };
    },
  });
  return { store, flaky, units, failNext: (failure: Failure) => void (next = failure) };
}

function runOn(store: ICheckpointStore, thread: ThreadRecord = threadRecord()) {
  const claimed: { fence: ClaimFence; until: string }[] = [];
  let claimEnded = 0;
  const context: RunContext = {
    store,
    owner: 'process-me',
    leaseUntil: () => iso(15_000),
    nowIso: () => iso(0),
    publish: () => undefined,
    onClaimed: (fence, until) => claimed.push({ fence, until }),
    onClaimEnded: () => void (claimEnded += 1),
  };
  return { run: new Run(context, thread, { kind: 'new' }), claimed, claimEnded: () => claimEnded };
}

/** What STORE_CONFLICT's conflict is, from a rejected commit. */
async function conflictKind(commit: Promise<unknown>): Promise<string | undefined> {
  const error: unknown = await commit.then(
    () => expect.unreachable('expected the commit to be refused'),
    (reason: unknown) => reason,
  );
  return conflictOf(error)?.kind;
}

describe('Run: commits and their failures', () => {
  it('stores a new thread claimed by its first commit, and tells whoever waits for it', async () => {
    const { store, flaky } = flakyStore();
    const { run, claimed } = runOn(flaky);
    await run.apply({ next: { ...run.thread, steps: 1 }, effects: { durable: 'now' } });
    await expect(run.firstCommit).resolves.toBeUndefined();
    expect(await store.getThread('thread-1')).toMatchObject({ version: 1, steps: 1, lease: { owner: 'process-me' } });
    expect(claimed).toEqual([{ fence: { threadId: 'thread-1', epoch: 1 }, until: iso(15_000) }]);
    expect(run.holdsClaim).toBe(true);
  });

  it('stops, writing nothing more, when another process saved the thread since (thread-changed)', async () => {
    const { store, flaky, units } = flakyStore();
    const { run } = runOn(flaky);
    await run.commit();
    await committed(store, { thread: save(present(await store.getThread('thread-1')), { steps: 9 }) });
    await run.apply({ next: { ...run.thread, steps: 1 } });
    expect(await conflictKind(run.commit())).toBe('thread-changed');
    await expect(run.apply({ next: run.thread })).rejects.toMatchObject({ code: 'STORE_CONFLICT' });
    await expect(run.commit()).rejects.toMatchObject({ code: 'STORE_CONFLICT' });
    expect(units).toHaveLength(2);
    expect((await store.getThread('thread-1'))?.steps).toBe(9);
  });

  it('says the claim ended when the store finds it ran out before the unit was built', async () => {
    const { store, flaky } = flakyStore();
    const { run, claimEnded } = runOn(flaky);
    await run.commit();
    const stored = present(await store.getThread('thread-1'));
    // The claim as stored ends before the run's clock: the store refuses the next unit.
    await committed(store, {
      thread: { kind: 'renew', threadId: 'thread-1', epoch: 1, owner: 'process-me', until: iso(-1) },
    });
    expect(stored.version).toBe(1);
    await run.apply({ next: { ...run.thread, steps: 1 } });
    expect(await conflictKind(run.commit())).toBe('claim-ended');
    expect(claimEnded()).toBe(1);
  });

  it('goes on after a global variable changed under it: its writes wait to be computed again', async () => {
    const { store, flaky } = flakyStore();
    const { run } = runOn(flaky);
    await run.commit();
    await committed(store, { globals: [{ kind: 'set', scope: 'workflow-a', name: 'count', value: 2 }] });
    const stale = { kind: 'compare-and-set' as const, scope: 'workflow-a', name: 'count', expected: 1, value: 3 };
    await run.apply({ next: { ...run.thread, steps: 1 }, effects: { globals: [stale] } });
    expect(await conflictKind(run.commit())).toBe('global-changed');
    expect(run.pendingEffects.globals).toEqual([stale]);
    // The node computes its completion again and the run commits it.
    run.reset({ ...run.thread, steps: 1 }, {});
    await run.apply({ next: run.thread, effects: { globals: [{ ...stale, expected: 2 }], durable: 'now' } });
    expect(await store.getGlobalVariables('workflow-a')).toEqual({ count: 3 });
  });

  it('stops when the store is unavailable, keeping what it did not write, and its first commit says why', async () => {
    const { store, flaky, failNext } = flakyStore();
    const { run } = runOn(flaky);
    failNext('unavailable');
    await run.apply({ next: { ...run.thread, steps: 1 } });
    await expect(run.commit()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(run.firstCommit).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(run.commit()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await store.getThread('thread-1')).toBeUndefined();
  });

  it('reads back a unit whose outcome is unknown: stored, the run goes on without committing it again', async () => {
    const { store, flaky, units, failNext } = flakyStore();
    const { run } = runOn(flaky);
    await run.commit();
    failNext('unknown, committed');
    await run.apply({ next: { ...run.thread, steps: 1 }, effects: { durable: 'now' } });
    expect(units).toHaveLength(2);
    expect(run.thread.version).toBe(2);
    await run.apply({ next: { ...run.thread, steps: 2 }, effects: { durable: 'now' } });
    expect(await store.getThread('thread-1')).toMatchObject({ version: 3, steps: 2 });
  });

  it('reads back a unit whose outcome is unknown: not stored, it is committed again (its fence makes that safe)', async () => {
    const { store, flaky, units, failNext } = flakyStore();
    const { run } = runOn(flaky);
    await run.commit();
    failNext('unknown, not committed');
    await run.apply({ next: { ...run.thread, steps: 1 }, effects: { durable: 'now' } });
    expect(units).toHaveLength(3);
    expect(await store.getThread('thread-1')).toMatchObject({ version: 2, steps: 1 });
  });

  it('writes nothing more once its claim is lost, not even the release of its claim', async () => {
    const { store, flaky, units } = flakyStore();
    const { run } = runOn(flaky);
    await run.commit();
    run.claimLost();
    await expect(run.apply({ next: { ...run.thread, steps: 1 }, effects: { durable: 'now' } })).rejects.toMatchObject({
      code: 'STORE_CONFLICT',
    });
    await run.freeClaim();
    expect(units).toHaveLength(1);
    expect((await store.getThread('thread-1'))?.lease?.owner).toBe('process-me');
    expect(run.holdsClaim).toBe(false);
  });

  it('renews its claim while it holds it, and no more once another process took the thread', async () => {
    const { store, flaky } = flakyStore();
    const { run } = runOn(flaky);
    await run.commit();
    expect(await run.renewClaim(iso(30_000), iso(5_000))).toBe(true);
    expect((await store.getThread('thread-1'))?.lease).toEqual({ owner: 'process-me', until: iso(30_000) });
    const stored = present(await store.getThread('thread-1'));
    await committed(store, {
      thread: save(stored, {}, { kind: 'take', owner: 'process-other', until: iso(90_000), now: iso(31_000) }),
    });
    expect(await run.renewClaim(iso(45_000), iso(10_000))).toBe(false);
  });

  it('proves the starts it committed, and gives no proof of a start the store refused', async () => {
    const { store, flaky } = flakyStore();
    const { run } = runOn(flaky);
    const start = (toolCallId: string) => ({
      kind: 'start' as const,
      call: toolApproval({ toolCallId }),
      from: ['approved' as const],
      at: iso(0),
    });
    const proof = await run.startCalls({ next: run.thread, effects: { toolCalls: [start('call-1')] } });
    expect(startCommitted(proof, 'call-1')).toBe(true);
    expect(startCommitted(proof, 'call-2')).toBe(false);
    expect((await store.listToolExecutions()).map((call) => call.status)).toEqual(['started']);
    // Started already from `approved` only: the store refuses it, and the run stops without a proof.
    await expect(run.startCalls({ next: run.thread, effects: { toolCalls: [start('call-1')] } })).rejects.toMatchObject(
      {
        code: 'STORE_CONFLICT',
      },
    );
  });
});
