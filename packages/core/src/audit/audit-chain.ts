import { hash as oneShotHash } from 'node:crypto';
import { canonicalJson } from '../policy/canonical-arguments.js';
import type { AuditEntry, AuditEntryInput } from './audit-entry.js';

/*
 * The audit log's hash chains (F33, F45; ADR 0007). Each thread has its own chain: an entry
 * links to the previous entry of the same thread, so appends of different threads never wait
 * on each other. The store links an entry when it commits it (the thread's head moves in the
 * same transaction); the global order is kept by anchors: every so often an anchor entry
 * seals the entries stored since the one before it, and anchors chain among themselves.
 * What verification detects: an edited entry (its digest), a removed or reordered entry of
 * a thread (the chain), a thread's cut-off tail (its head, kept apart), and entries removed,
 * added or edited before the last anchor, whole threads included (the anchors).
 */

/** The hash a thread's chain starts from (`previousHash` of its first entry): 64 zeros. */
export const GENESIS = '0'.repeat(64);

const sha256 = (text: string) => oneShotHash('sha256', text, 'hex');

/** The end of one thread's chain, kept apart from its entries (a cut-off tail no longer matches it). */
export interface AuditThreadHead {
  threadId: string;
  threadSequence: number;
  hash: string;
}

/** The end of the global chain of the entries written before per-thread chains (a store of an older version). */
export interface AuditHead {
  sequence: number;
  hash: string;
}

/**
 * A seal over the entries stored since the anchor before it (those with `sequence` up to
 * `through`), chained to that anchor.
 */
export interface AuditAnchor {
  /** 1, 2, 3… */
  sequence: number;
  at: string;
  /** The last entry sequence it covers. */
  through: number;
  /** SHA-256 over the covered entries' thread, position in the thread and hash, in sequence order. */
  digest: string;
  previousHash: string;
  hash: string;
}

/** The content of an entry that its hash covers: everything but where the store put it. */
export function auditContent(entry: AuditEntryInput & { at: string }): Record<string, unknown> {
  const {
    sequence: _sequence,
    threadSequence: _threadSequence,
    previousHash: _previousHash,
    hash: _hash,
    ...content
  } = entry as AuditEntryInput & {
    at: string;
    sequence?: number;
    threadSequence?: number;
    previousHash?: string;
    hash?: string;
  };
  return content;
}

/** The SHA-256 of an entry's canonical content. */
export function auditDigest(entry: AuditEntryInput & { at: string }): string {
  return sha256(canonicalJson(auditContent(entry)));
}

/** The hash of the entry at `threadSequence` of a thread's chain, after `previousHash`. */
export function auditLink(previousHash: string, threadSequence: number, digest: string): string {
  return sha256(`${previousHash}\n${threadSequence}\n${digest}`);
}

/** The digest an anchor keeps of the entries it covers (in sequence order). */
export function anchorDigest(entries: readonly Pick<AuditEntry, 'threadId' | 'threadSequence' | 'hash'>[]): string {
  return sha256(entries.map((entry) => `${entry.threadId}\t${entry.threadSequence ?? 0}\t${entry.hash}\n`).join(''));
}

/** The hash of an anchor, chained to the one before it. */
export function anchorHash(anchor: Omit<AuditAnchor, 'hash'>): string {
  return sha256(`${anchor.previousHash}\n${anchor.sequence}\n${anchor.through}\n${anchor.at}\n${anchor.digest}`);
}

/** The anchor after `previous` that covers `entries` (the stored entries after it, in sequence order). */
export function nextAnchor(previous: AuditAnchor | undefined, entries: readonly AuditEntry[], at: string): AuditAnchor {
  const body = {
    sequence: (previous?.sequence ?? 0) + 1,
    at,
    through: entries.at(-1)?.sequence ?? previous?.through ?? 0,
    digest: anchorDigest(entries),
    previousHash: previous?.hash ?? GENESIS,
  };
  return { ...body, hash: anchorHash(body) };
}

export type AuditVerification = { valid: true; entries: number } | { valid: false; brokenAt: number; reason: string };

/** What a verification compares the entries with, besides themselves. */
export interface AuditEvidence {
  /** Each thread's head as kept apart from the entries. */
  heads?: readonly AuditThreadHead[];
  anchors?: readonly AuditAnchor[];
  /** The head of the entries of the older global chain, if the store has one (null: it records none). */
  legacyHead?: AuditHead | null;
}

/**
 * Checks audit entries (in sequence order, as listed or exported): each thread's chain
 * links and hashes, each entry's content, and with `evidence` that every thread ends at
 * its head and that the anchors seal exactly the entries they cover. Entries of the older
 * global chain (no `threadSequence`) are checked as that chain.
 */
export function verifyAuditChain(entries: readonly AuditEntry[], evidence: AuditEvidence = {}): AuditVerification {
  const legacy = entries.filter((entry) => entry.threadSequence === undefined);
  const legacyProblem = verifyLegacy(legacy, evidence.legacyHead);
  if (legacyProblem) return legacyProblem;
  const ends = new Map<string, { threadSequence: number; hash: string }>();
  let lastSequence = 0;
  for (const entry of entries) {
    if (entry.sequence <= lastSequence)
      return { valid: false, brokenAt: entry.sequence, reason: 'entries are out of order' };
    lastSequence = entry.sequence;
    if (entry.threadSequence === undefined) continue;
    const before = ends.get(entry.threadId) ?? { threadSequence: 0, hash: GENESIS };
    if (entry.threadSequence !== before.threadSequence + 1)
      return {
        valid: false,
        brokenAt: entry.sequence,
        reason: `an entry of thread ${entry.threadId} is missing or out of order`,
      };
    if (entry.previousHash !== before.hash)
      return { valid: false, brokenAt: entry.sequence, reason: `the chain of thread ${entry.threadId} is broken` };
    if (auditLink(entry.previousHash, entry.threadSequence, auditDigest(entry)) !== entry.hash)
      return { valid: false, brokenAt: entry.sequence, reason: 'the entry was changed' };
    ends.set(entry.threadId, { threadSequence: entry.threadSequence, hash: entry.hash });
  }
  for (const head of evidence.heads ?? []) {
    const end = ends.get(head.threadId);
    if (end?.threadSequence !== head.threadSequence || end.hash !== head.hash) {
      return {
        valid: false,
        brokenAt: lastSequence + 1,
        reason: `the entries of thread ${head.threadId} end at ${end?.threadSequence ?? 0} but its head records ${head.threadSequence}: entries were removed from its end`,
      };
    }
  }
  if (evidence.heads !== undefined) {
    const headed = new Set(evidence.heads.map((head) => head.threadId));
    const orphan = [...ends.keys()].find((threadId) => !headed.has(threadId));
    if (orphan !== undefined)
      return {
        valid: false,
        brokenAt: lastSequence + 1,
        reason: `thread ${orphan} has entries but no head: its head was removed`,
      };
  }
  return verifyAnchors(entries, evidence.anchors ?? []) ?? { valid: true, entries: entries.length };
}

function verifyAnchors(entries: readonly AuditEntry[], anchors: readonly AuditAnchor[]): AuditVerification | undefined {
  let previous: AuditAnchor | undefined;
  let from = 0;
  for (const anchor of anchors) {
    const { hash, ...body } = anchor;
    if (anchor.sequence !== (previous?.sequence ?? 0) + 1 || anchor.previousHash !== (previous?.hash ?? GENESIS))
      return {
        valid: false,
        brokenAt: anchor.through,
        reason: `the audit anchors are broken at anchor ${anchor.sequence}`,
      };
    if (anchorHash(body) !== hash)
      return { valid: false, brokenAt: anchor.through, reason: `audit anchor ${anchor.sequence} was changed` };
    const covered = entries.filter(
      (entry) =>
        entry.sequence > (previous?.through ?? 0) &&
        entry.sequence <= anchor.through &&
        entry.threadSequence !== undefined,
    );
    if (anchorDigest(covered) !== anchor.digest) {
      return {
        valid: false,
        brokenAt: covered[0]?.sequence ?? from + 1,
        reason: `the entries up to ${anchor.through} differ from what anchor ${anchor.sequence} sealed: entries were removed, added or changed`,
      };
    }
    from = anchor.through;
    previous = anchor;
  }
  return undefined;
}

/** The older global chain: sequence 1, 2, 3… each linked to the one before, ending at its head. */
function verifyLegacy(
  entries: readonly AuditEntry[],
  head: AuditHead | null | undefined,
): AuditVerification | undefined {
  let previousHash = GENESIS;
  for (const [index, entry] of entries.entries()) {
    const { hash, threadSequence: _threadSequence, ...body } = entry;
    if (entry.sequence !== index + 1)
      return { valid: false, brokenAt: index + 1, reason: 'an entry is missing or out of order' };
    if (entry.previousHash !== previousHash)
      return { valid: false, brokenAt: entry.sequence, reason: 'the chain is broken' };
    if (sha256(canonicalJson(body)) !== hash)
      return { valid: false, brokenAt: entry.sequence, reason: 'the entry was changed' };
    previousHash = hash;
  }
  if (head === undefined) return undefined;
  const last = entries.at(-1);
  if (
    (head?.sequence ?? 0) !== (last?.sequence ?? 0) ||
    (head !== null && last !== undefined && head.hash !== last.hash)
  ) {
    return {
      valid: false,
      brokenAt: (last?.sequence ?? 0) + 1,
      reason: `the log ends at entry ${last?.sequence ?? 0} but its head records entry ${head?.sequence ?? 0}: entries were removed from the end`,
    };
  }
  return undefined;
}
