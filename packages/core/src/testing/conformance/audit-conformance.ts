import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditDigest, GENESIS, nextAnchor, verifyAuditChain } from '../../audit/audit-chain.js';
import type { AuditEntryInput } from '../../audit/audit-log.js';
import type { AuditDraft, ICheckpointStore } from '../../persistence/checkpoint-store.js';
import { committed, CREATED_AT, LATER, refused, UNICODE_TEXT } from './store-records.js';

/** An audit entry ready for a unit, as AuditLog drafts it. */
function draft(threadId: string, overrides: Partial<AuditEntryInput> = {}): AuditDraft {
  const entry = {
    threadId,
    toolCallId: 'call-1',
    toolName: 'write_file',
    outcome: 'allow' as const,
    decidedBy: 'person',
    rule: 'ask',
    reason: `looks fine ${UNICODE_TEXT}`,
    stage: 'execution' as const,
    originalArguments: { path: 'a.txt', content: 'hello' },
    at: CREATED_AT,
    ...overrides,
  };
  return { entry, digest: auditDigest(entry) };
}

/**
 * The audit log (F33, F45; one hash chain per thread, anchors for the global order), remembered
 * approvals and the store as its own job queue, as a vitest suite next to
 * {@link describeStoreConformance}: same `makeStore` and `dispose`.
 */
export function describeAuditAndMemoryConformance(
  name: string,
  makeStore: () => Promise<ICheckpointStore>,
  dispose?: (store: ICheckpointStore) => Promise<void>,
): void {
  describe(`${name} (audit and jobs conformance)`, () => {
    let store: ICheckpointStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      await store.close();
      await dispose?.(store);
    });

    describe('audit log', () => {
      it("links each entry into its thread's chain, numbers every entry, and keeps each field", async () => {
        const first = await committed(store, {
          audit: [draft('t-1'), draft('t-2', { responder: 'ada', editedArguments: { path: 'b' } })],
        });
        const second = await committed(store, {
          audit: [draft('t-1', { outcome: 'deny', toolDefinitionHash: 'f'.repeat(64), interactionId: 'i-1' })],
        });
        const [a, b] = first.audit;
        const [c] = second.audit;
        expect(a).toMatchObject({ threadId: 't-1', threadSequence: 1, previousHash: GENESIS });
        expect(b).toMatchObject({
          threadId: 't-2',
          threadSequence: 1,
          previousHash: GENESIS,
          responder: 'ada',
          editedArguments: { path: 'b' },
        });
        expect(c).toMatchObject({ threadId: 't-1', threadSequence: 2, previousHash: a?.hash, interactionId: 'i-1' });
        const sequences = [a, b, c].map((entry) => entry?.sequence ?? 0);
        expect([...sequences].sort((x, y) => x - y)).toEqual(sequences);
        expect(await store.listAuditEntries()).toEqual([a, b, c]);
        expect(await store.listAuditEntries({ threadId: 't-1' })).toEqual([a, c]);
        expect(await store.listAuditEntries({ after: a?.sequence ?? 0 })).toEqual([b, c]);
        const evidence = await store.readAuditEvidence();
        expect(verifyAuditChain(await store.listAuditEntries(), evidence)).toEqual({ valid: true, entries: 3 });
        expect([...evidence.heads].sort((x, y) => x.threadId.localeCompare(y.threadId))).toEqual([
          { threadId: 't-1', threadSequence: 2, hash: c?.hash },
          { threadId: 't-2', threadSequence: 1, hash: b?.hash },
        ]);
      });

      it('gives concurrent appends to one thread one chain with no gaps, and other threads their own', async () => {
        await Promise.all(
          Array.from({ length: 10 }, (_, index) => store.commit({ audit: [draft(index % 2 === 0 ? 'even' : 'odd')] })),
        );
        const entries = await store.listAuditEntries();
        expect(entries.filter((entry) => entry.threadId === 'even').map((entry) => entry.threadSequence)).toEqual([
          1, 2, 3, 4, 5,
        ]);
        expect(verifyAuditChain(entries, await store.readAuditEvidence())).toEqual({ valid: true, entries: 10 });
      });

      it('keeps anchors in order: a second anchor with the same sequence is refused', async () => {
        const { audit } = await committed(store, { audit: [draft('t-1'), draft('t-2')] });
        const anchor = nextAnchor(undefined, audit, LATER);
        await committed(store, { anchor });
        expect(await refused(store, { anchor: { ...anchor, at: 'another moment' } })).toEqual({
          kind: 'anchor-exists',
          sequence: 1,
        });
        const evidence = await store.readAuditEvidence();
        expect(evidence.anchors).toEqual([anchor]);
        expect(verifyAuditChain(await store.listAuditEntries(), evidence)).toEqual({ valid: true, entries: 2 });
      });
    });

    describe('the store as its job queue (when it is one)', () => {
      it('hands a due job to one owner, not again while locked, and removes it when finished', async () => {
        if (store.takeJobs === undefined || store.finishJob === undefined) {
          // Not its own job queue (PostgreSQL's is graphile-worker's): then it has neither half of one.
          expect([store.takeJobs, store.finishJob]).toEqual([undefined, undefined]);
          return;
        }
        const job = {
          kind: 'continue' as const,
          threadId: 't-1',
          workflowId: 'w',
          runAt: CREATED_AT,
          key: 'continue:t-1',
        };
        await committed(store, { jobs: [job, { ...job, workflowId: 'other', key: 'continue:t-2', threadId: 't-2' }] });
        expect(await store.takeJobs(['w'], 'a', LATER, '2026-01-02T03:10:00.000Z', 10)).toEqual([job]);
        expect(await store.takeJobs(['w'], 'b', LATER, '2026-01-02T03:10:00.000Z', 10)).toEqual([]);
        await store.finishJob('continue:t-1', 'a');
        expect(await store.takeJobs(['w'], 'b', '2026-01-02T03:20:00.000Z', '2026-01-02T03:30:00.000Z', 10)).toEqual(
          [],
        );
      });
    });
  });
}
