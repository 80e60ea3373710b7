import type { ApprovalStage } from '@interlock/sdk-types';

/* The audit entry's shape, apart from the log (audit-log.ts) and the chain (audit-chain.ts) that both use it, and the store that keeps it. */

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
  /** Where the store put it among all entries: increasing in the order they were stored (not hashed). */
  sequence: number;
  /** Its position in its thread's chain, from 1 (absent on entries of the older global chain). */
  threadSequence?: number;
  at: string;
  /** The hash of the thread's entry before it (64 zeros for the first). */
  previousHash: string;
  hash: string;
}
