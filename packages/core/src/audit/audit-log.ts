import { createHash } from 'node:crypto';
import type { ApprovalStage } from '@interlock/sdk-types';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
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
 * The append-only, hash-chained audit trail (F33, F45), kept in the store: each entry's
 * hash covers its content and the previous entry's hash, so changing or removing any entry
 * breaks `verify()`.
 */
export class AuditLog {
  constructor(
    private readonly store: ICheckpointStore,
    private readonly now: () => number = Date.now,
  ) {}

  append(input: AuditEntryInput): Promise<AuditEntry> {
    const at = new Date(this.now()).toISOString();
    return this.store.appendAuditEntry((previous) => {
      const body = { ...input, sequence: (previous?.sequence ?? 0) + 1, at, previousHash: previous?.hash ?? GENESIS };
      return { ...body, hash: hashEntry(body) };
    });
  }

  list(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    return this.store.listAuditEntries(filter);
  }

  /** Checks the whole chain as stored. */
  async verify(): Promise<AuditVerification> {
    return verifyAuditChain(await this.store.listAuditEntries());
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
