import type { ApprovalStage } from '@interlock/sdk-types';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../policy/canonical-arguments.js';

/** One decision about a tool call (F33): who or which rule, what, when, why. */
export interface AuditEntryInput {
  threadId: string;
  toolCallId: string;
  toolName: string;
  outcome: 'allow' | 'deny';
  /** The pipeline rule, `person`, or `callback:onToolApprove`. */
  decidedBy: string;
  rule: string;
  reason: string;
  responder?: string;
  stage: ApprovalStage;
  originalArguments: Record<string, unknown>;
  editedArguments?: Record<string, unknown>;
}

export interface AuditEntry extends AuditEntryInput {
  sequence: number;
  at: string;
  previousHash: string;
  hash: string;
}

export type AuditVerification = { valid: true; entries: number } | { valid: false; brokenAt: number; reason: string };

const GENESIS = '0'.repeat(64);

/**
 * An append-only, hash-chained audit trail (F33, F45): each entry's hash covers its content
 * and the previous entry's hash, so changing or removing any entry breaks `verify()`.
 */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  append(input: AuditEntryInput): AuditEntry {
    const previousHash = this.entries.at(-1)?.hash ?? GENESIS;
    const body = { ...input, sequence: this.entries.length + 1, at: new Date(this.now()).toISOString(), previousHash };
    const entry = { ...body, hash: hashEntry(body) };
    this.entries.push(entry);
    return structuredClone(entry);
  }

  list(filter: { threadId?: string } = {}): AuditEntry[] {
    return this.entries.filter((entry) => filter.threadId === undefined || entry.threadId === filter.threadId).map((entry) => structuredClone(entry));
  }

  /** Checks the chain of the given entries (default: this log's). */
  verify(entries: readonly AuditEntry[] = this.entries): AuditVerification {
    return verifyAuditChain(entries);
  }
}

/** Checks a chain of entries, e.g. an exported one. */
export function verifyAuditChain(entries: readonly AuditEntry[]): AuditVerification {
  let previousHash = GENESIS;
  for (const [index, entry] of entries.entries()) {
    const { hash, ...body } = entry;
    if (entry.sequence !== index + 1) return { valid: false, brokenAt: index + 1, reason: 'an entry is missing or out of order' };
    if (entry.previousHash !== previousHash) return { valid: false, brokenAt: entry.sequence, reason: 'the chain is broken' };
    if (hashEntry(body) !== hash) return { valid: false, brokenAt: entry.sequence, reason: 'the entry was changed' };
    previousHash = hash;
  }
  return { valid: true, entries: entries.length };
}

function hashEntry(body: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
