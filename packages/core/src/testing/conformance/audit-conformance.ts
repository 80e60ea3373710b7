import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../audit/audit-log.js';
import { UNICODE_TEXT } from './store-records.js';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';

type Previous = { sequence: number; hash: string } | undefined;

/** An entry sealed on `previous` the way AuditLog does, with a hash that is easy to predict. */
function sealed(previous: Previous, overrides: Partial<AuditEntry> = {}): AuditEntry {
  const sequence = (previous?.sequence ?? 0) + 1;
  return {
    threadId: 'thread-1',
    toolCallId: `call-${sequence}`,
    toolName: 'write_file',
    outcome: 'allow',
    decidedBy: 'person',
    rule: 'ask',
    reason: 'looks fine',
    stage: 'execution',
    originalArguments: { path: 'a.txt', content: 'hello' },
    at: '2026-01-02T03:04:05.678Z',
    previousHash: previous?.hash ?? 'genesis',
    hash: `hash-${sequence}`,
    sequence,
    ...overrides,
  };
}

/**
 * The audit log and remembered approvals every ICheckpointStore must have (F33, F45), as a
 * vitest suite next to {@link describeStoreConformance}: same `makeStore` and `dispose`.
 */
export function describeAuditAndMemoryConformance(
  name: string,
  makeStore: () => Promise<ICheckpointStore>,
  dispose?: (store: ICheckpointStore) => Promise<void>,
): void {
  describe(`${name} (audit and remembered approvals conformance)`, () => {
    let store: ICheckpointStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    afterEach(async () => {
      await store.close();
      await dispose?.(store);
    });

    describe('audit log', () => {
      it('chains appends: each seal gets the previous sequence and hash', async () => {
        const seen: Previous[] = [];
        for (let index = 0; index < 3; index += 1) {
          const entry = await store.appendAuditEntry((previous) => {
            seen.push(previous);
            return sealed(previous);
          });
          expect(entry.sequence).toBe(index + 1);
        }
        expect(seen).toEqual([undefined, { sequence: 1, hash: 'hash-1' }, { sequence: 2, hash: 'hash-2' }]);
        const entries = await store.listAuditEntries();
        expect(entries.map((entry) => [entry.sequence, entry.previousHash, entry.hash])).toEqual([
          [1, 'genesis', 'hash-1'],
          [2, 'hash-1', 'hash-2'],
          [3, 'hash-2', 'hash-3'],
        ]);
      });

      it('gives 10 concurrent appends the sequences 1..10, no gaps, no duplicates', async () => {
        const appended = await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            store.appendAuditEntry((previous) => sealed(previous, { toolCallId: `call-${index}` })),
          ),
        );
        expect(appended.map((entry) => entry.sequence).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        const entries = await store.listAuditEntries();
        expect(entries.map((entry) => entry.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(new Set(entries.map((entry) => entry.toolCallId)).size).toBe(10);
        for (const [index, entry] of entries.entries()) {
          expect(entry.previousHash).toBe(index === 0 ? 'genesis' : `hash-${index}`);
        }
      });

      it('lists in sequence order, all entries or those of one thread', async () => {
        for (const threadId of ['a', 'b', 'a', 'c', 'a'])
          await store.appendAuditEntry((previous) => sealed(previous, { threadId }));
        expect((await store.listAuditEntries({ threadId: 'a' })).map((entry) => entry.sequence)).toEqual([1, 3, 5]);
        expect((await store.listAuditEntries({ threadId: 'b' })).map((entry) => entry.sequence)).toEqual([2]);
        expect(await store.listAuditEntries({ threadId: 'none' })).toEqual([]);
        expect(await store.listAuditEntries({})).toHaveLength(5);
      });

      it('round-trips every field, with and without the optional ones, as copies', async () => {
        const full = sealed(undefined, {
          outcome: 'deny',
          decidedBy: 'callback:onToolApprove',
          reason: `no \u0000 way ${UNICODE_TEXT}`,
          responder: 'ada',
          stage: 'result',
          originalArguments: { path: UNICODE_TEXT, nested: { list: [1, 'two', null, true, 2.5] } },
          editedArguments: { path: 'b.txt', nested: {} },
          toolDefinitionHash: 'f'.repeat(64),
          interactionId: 'interaction-7',
        });
        const returned = await store.appendAuditEntry(() => full);
        expect(returned).toEqual(full);
        const bare = await store.appendAuditEntry((previous) => sealed(previous));
        const [first, second] = await store.listAuditEntries();
        expect(first).toEqual(full);
        expect(second).toEqual(bare);
        expect(second).not.toHaveProperty('responder');
        expect(second).not.toHaveProperty('editedArguments');
        expect(second).not.toHaveProperty('toolDefinitionHash');
        expect(second).not.toHaveProperty('interactionId');
        (first?.originalArguments['nested'] as { list: unknown[] }).list.push('changed');
        returned.originalArguments['path'] = 'changed';
        expect((await store.listAuditEntries())[0]).toEqual(full);
      });
    });

    describe('remembered approvals', () => {
      it('remembers a key until it expires, then drops it', async () => {
        expect(await store.isApprovalRemembered('session-1:write_file', 1_000)).toBe(false);
        await store.rememberApproval('session-1:write_file', 2_000);
        expect(await store.isApprovalRemembered('session-1:write_file', 1_999)).toBe(true);
        expect(await store.isApprovalRemembered('session-1:other', 1_999)).toBe(false);
        expect(await store.isApprovalRemembered('session-1:write_file', 2_000)).toBe(false);
        // Dropped: an earlier `now` no longer finds it.
        expect(await store.isApprovalRemembered('session-1:write_file', 1_000)).toBe(false);
      });

      it('extends an entry when it is remembered again', async () => {
        await store.rememberApproval('key', 2_000);
        await store.rememberApproval('key', 5_000);
        expect(await store.isApprovalRemembered('key', 4_999)).toBe(true);
        await store.rememberApproval('key', 3_000);
        expect(await store.isApprovalRemembered('key', 4_000)).toBe(false);
      });

      it('keeps times beyond 32 bits (real epoch milliseconds)', async () => {
        const now = Date.UTC(2026, 0, 2);
        await store.rememberApproval('key', now + 60_000);
        expect(await store.isApprovalRemembered('key', now)).toBe(true);
        expect(await store.isApprovalRemembered('key', now + 60_000)).toBe(false);
      });
    });
  });
}
