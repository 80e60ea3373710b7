import { describe, expect, it } from 'vitest';
import { GENESIS, auditDigest, auditLink, nextAnchor, verifyAuditChain } from '../../audit/audit-chain.js';
import type { AuditEntryInput } from '../../audit/audit-log.js';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import type { AuditDraft } from '../../persistence/unit-of-work.js';
import { committed, refused } from './commit-helpers.js';
import { AWKWARD_TEXT, CREATED_AT, LATER, present } from './store-records.js';

/** An audit draft of a decision about `toolCallId` of `threadId`, digested as the engine does. */
export function auditDraft(threadId: string, toolCallId: string, overrides: Partial<AuditEntryInput> = {}): AuditDraft {
  const entry = {
    threadId,
    toolCallId,
    toolName: 'write_file',
    outcome: 'allow' as const,
    decidedBy: 'person',
    rule: 'ask:risk:HIGH',
    reason: `approved ${AWKWARD_TEXT}`,
    responder: 'ada',
    stage: 'execution' as const,
    originalArguments: { path: 'README.md', content: AWKWARD_TEXT },
    at: CREATED_AT,
    ...overrides,
  };
  return { entry, digest: auditDigest(entry) };
}

/** What `commit` does to the audit log: each entry linked into its thread's chain, anchors. */
export function describeAuditCommits(store: () => ICheckpointStore): void {
  describe('commit: audit', () => {
    it("links each entry into its thread's chain, as stored and as read back", async () => {
      const first = await committed(store(), {
        audit: [auditDraft('thread-1', 'call-1'), auditDraft('thread-2', 'call-1', { editedArguments: { path: 'x' } })],
      });
      const second = await committed(store(), {
        audit: [
          auditDraft('thread-1', 'call-2', {
            outcome: 'deny',
            interactionId: 'interaction-1',
            toolDefinitionHash: 'abc',
          }),
        ],
      });
      const a = present(first.audit[0]);
      const b = present(first.audit[1]);
      const c = present(second.audit[0]);
      expect(a).toMatchObject({ threadId: 'thread-1', threadSequence: 1, previousHash: GENESIS });
      expect(a.hash).toBe(auditLink(GENESIS, 1, auditDraft('thread-1', 'call-1').digest));
      expect(b).toMatchObject({
        threadId: 'thread-2',
        threadSequence: 1,
        previousHash: GENESIS,
        editedArguments: { path: 'x' },
      });
      expect(c).toMatchObject({ threadSequence: 2, previousHash: a.hash, interactionId: 'interaction-1' });
      expect(a.sequence).toBeLessThan(b.sequence);
      expect(b.sequence).toBeLessThan(c.sequence);
      const entries = await store().listAuditEntries();
      expect(entries).toEqual([a, b, c]);
      expect(await store().listAuditEntries({ threadId: 'thread-1' })).toEqual([a, c]);
      expect(await store().listAuditEntries({ after: b.sequence })).toEqual([c]);
      const evidence = await store().readAuditEvidence();
      expect(evidence.heads.slice().sort((x, y) => x.threadId.localeCompare(y.threadId))).toEqual([
        { threadId: 'thread-1', threadSequence: 2, hash: c.hash },
        { threadId: 'thread-2', threadSequence: 1, hash: b.hash },
      ]);
      expect(verifyAuditChain(entries, evidence)).toEqual({ valid: true, entries: 3 });
    });

    it('appends nothing of a refused unit, and the chain goes on from its head', async () => {
      await committed(store(), { audit: [auditDraft('thread-1', 'call-1')] });
      expect(
        await refused(store(), {
          audit: [auditDraft('thread-1', 'call-2')],
          globals: [{ kind: 'compare-and-set', scope: 's', name: 'n', expected: 1, value: 2 }],
        }),
      ).toMatchObject({ kind: 'global-changed' });
      const next = await committed(store(), { audit: [auditDraft('thread-1', 'call-3')] });
      expect(next.audit[0]?.threadSequence).toBe(2);
      const entries = await store().listAuditEntries();
      expect(entries.map((entry) => entry.toolCallId)).toEqual(['call-1', 'call-3']);
      expect(verifyAuditChain(entries, await store().readAuditEvidence())).toMatchObject({ valid: true });
    });

    it('keeps anchors in order and refuses one whose place is taken', async () => {
      const { audit } = await committed(store(), { audit: [auditDraft('thread-1', 'call-1')] });
      const first = nextAnchor(undefined, audit, LATER);
      await committed(store(), { anchor: first });
      expect(await refused(store(), { anchor: first })).toEqual({ kind: 'anchor-exists', sequence: 1 });
      const third = { ...nextAnchor(nextAnchor(first, [], LATER), [], LATER) };
      expect(await refused(store(), { anchor: third })).toEqual({ kind: 'anchor-exists', sequence: 3 });
      const evidence = await store().readAuditEvidence();
      expect(evidence.anchors).toEqual([first]);
      expect(verifyAuditChain(await store().listAuditEntries(), evidence)).toMatchObject({ valid: true });
    });
  });
}
