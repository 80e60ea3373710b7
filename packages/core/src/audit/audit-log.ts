import type { JSONWebKeySet } from '@interlock/receipts';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { StoredReceipt } from '../receipts/receipts.js';
import type { AuditDraft } from '../persistence/unit-of-work.js';
import type { AuditEntry, AuditEntryInput } from './audit-entry.js';
import {
  auditDigest,
  nextAnchor,
  verifyAuditChain,
  type AuditAnchor,
  type AuditEvidence,
  type AuditVerification,
} from './audit-chain.js';
import { isoTime } from '../engine/clock.js';

export type { AuditEntry, AuditEntryInput } from './audit-entry.js';
export {
  verifyAuditChain,
  type AuditAnchor,
  type AuditEvidence,
  type AuditHead,
  type AuditThreadHead,
  type AuditVerification,
} from './audit-chain.js';

/**
 * An exported audit trail (F45): the entries and the evidence `verifyAuditChain(entries,
 * evidence)` checks them against. Of one thread, the evidence is its head only (the
 * anchors seal every thread's entries together).
 */
export interface AuditExport {
  entries: AuditEntry[];
  evidence: AuditEvidence;
  /** The approval receipts of the calls that ran (F63), each checked against the entry it names. */
  receipts?: StoredReceipt[];
  /** Every public key receipts were signed with (retired ones too): what they are checked against offline. */
  keys?: JSONWebKeySet;
}

/**
 * How long an entry's sequence is left out of anchors after it was first seen: a store that
 * hands out sequences before its transaction commits (PostgreSQL) may commit a lower one
 * after a higher one, within a statement's time.
 */
const ANCHOR_SETTLE_MS = 30_000;

/**
 * The append-only, hash-chained audit trail (F33, F45; see audit-chain.ts): entries are
 * written as part of the unit of work of the durability point that made the decision, so
 * this class only drafts them, reads them, verifies them and anchors them.
 */
export class AuditLog {
  /** The highest sequence seen at the last look, and when: anchored at the next look past the settle time. */
  private seen: { sequence: number; at: number } | undefined;

  constructor(
    private readonly store: ICheckpointStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** An entry ready to go into a unit of work: stamped now, with its content's digest. */
  draft(input: AuditEntryInput): AuditDraft {
    const entry = { ...input, at: isoTime(this.now()) };
    return { entry, digest: auditDigest(entry) };
  }

  list(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    return this.store.listAuditEntries(filter);
  }

  /**
   * The entries (of one thread, or all) with what a copy is verified against (F45, issue
   * 37): each thread's head and, for the whole trail, the anchors — so a copy with entries
   * cut from its end no longer verifies. The evidence is read first and the entries trimmed
   * to it: an entry appended meanwhile is left for the next export, never half in this one.
   */
  async export(filter: { threadId?: string } = {}): Promise<AuditExport> {
    const stored = await this.store.readAuditEvidence();
    const listed = await this.store.listAuditEntries(filter);
    const heads =
      filter.threadId === undefined ? stored.heads : stored.heads.filter((head) => head.threadId === filter.threadId);
    const ends = new Map(heads.map((head) => [head.threadId, head.threadSequence]));
    const entries = listed.filter(
      (entry) => entry.threadSequence === undefined || entry.threadSequence <= (ends.get(entry.threadId) ?? 0),
    );
    const evidence: AuditEvidence =
      filter.threadId === undefined ? { heads, anchors: stored.anchors, legacyHead: stored.legacyHead } : { heads };
    return { entries, evidence };
  }

  /** Checks every chain as stored, that each thread ends at its head, and the anchors. */
  async verify(): Promise<AuditVerification> {
    const [entries, evidence] = await Promise.all([this.store.listAuditEntries(), this.store.readAuditEvidence()]);
    return verifyAuditChain(entries, evidence);
  }

  /**
   * The next anchor to seal the entries stored since the last one, up to those seen at the
   * previous call at least `ANCHOR_SETTLE_MS` ago (so an entry whose transaction was still
   * open is never left out); undefined when there is nothing to seal yet. The answer desk
   * stores it (another process anchoring at the same time wins; the desk then stores nothing).
   */
  async nextAnchor(): Promise<AuditAnchor | undefined> {
    const now = this.now();
    const { anchors } = await this.store.readAuditEvidence();
    const last = anchors.at(-1);
    const after = await this.store.listAuditEntries({ after: last?.through ?? 0 });
    const newest = after.at(-1)?.sequence;
    const settled = this.seen !== undefined && now - this.seen.at >= ANCHOR_SETTLE_MS ? this.seen.sequence : undefined;
    if (newest !== undefined && (this.seen === undefined || settled !== undefined))
      this.seen = { sequence: newest, at: now };
    if (settled === undefined) return undefined;
    const covered = after.filter((entry) => entry.sequence <= settled && entry.threadSequence !== undefined);
    if (covered.length === 0) return undefined;
    return nextAnchor(last, covered, new Date(now).toISOString());
  }
}
