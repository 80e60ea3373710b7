import { createHash } from 'node:crypto';
import type { ApprovalStage } from '@interlock/sdk-types';
import type { AuditHead, ClaimFence, ICheckpointStore } from '../persistence/checkpoint-store.js';
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
  /** SHA-256 of the tool definition decided about, for tools pinned by it (an MCP server's). */
  toolDefinitionHash?: string;
  /** The question whose answer (or failed wait) made this decision: a person's, or `interaction:<reason>`. */
  interactionId?: string;
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

  /** Appends an entry; a run's entries carry its claim's fence, so a process that lost the claim adds none. */
  append(input: AuditEntryInput, fence?: ClaimFence): Promise<AuditEntry> {
    const at = new Date(this.now()).toISOString();
    return this.store.appendAuditEntry((previous) => {
      const body = { ...input, sequence: (previous?.sequence ?? 0) + 1, at, previousHash: previous?.hash ?? GENESIS };
      return { ...body, hash: hashEntry(body) };
    }, fence);
  }

  list(filter: { threadId?: string } = {}): Promise<AuditEntry[]> {
    return this.store.listAuditEntries(filter);
  }

  /** Checks the whole chain as stored, and that it ends at the head kept apart from it (a removed tail is found). */
  async verify(): Promise<AuditVerification> {
    const [entries, head] = await Promise.all([this.store.listAuditEntries(), this.store.getAuditHead()]);
    return verifyAuditChain(entries, head ?? null);
  }
}

/**
 * Checks a chain of entries, e.g. an exported one. With `head` (the store's head, or null
 * for a store that records none yet), the chain must also end exactly there: entries cut
 * off the end, or all of them, are reported.
 */
export function verifyAuditChain(entries: readonly AuditEntry[], head?: AuditHead | null): AuditVerification {
  let previousHash = GENESIS;
  for (const [index, entry] of entries.entries()) {
    const { hash, ...body } = entry;
    if (entry.sequence !== index + 1)
      return { valid: false, brokenAt: index + 1, reason: 'an entry is missing or out of order' };
    if (entry.previousHash !== previousHash)
      return { valid: false, brokenAt: entry.sequence, reason: 'the chain is broken' };
    if (hashEntry(body) !== hash) return { valid: false, brokenAt: entry.sequence, reason: 'the entry was changed' };
    previousHash = hash;
  }
  if (head !== undefined) {
    const last = entries.at(-1);
    if ((head?.sequence ?? 0) !== (last?.sequence ?? 0) || (head !== null && head.hash !== last?.hash)) {
      return {
        valid: false,
        brokenAt: (last?.sequence ?? 0) + 1,
        reason: `the log ends at entry ${last?.sequence ?? 0} but its head records entry ${head?.sequence ?? 0}: entries were removed from the end`,
      };
    }
  }
  return { valid: true, entries: entries.length };
}

function hashEntry(body: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
