import type { AuditDraft } from '../persistence/unit-of-work.js';

/**
 * The decision that let a call run, kept on the call for its receipt (F63): the digest of
 * the audit entry that records it, who decided (every approver of a quorum), the rule, when.
 */
export interface CallGrant {
  /** The audit entry's content digest (`auditDigest`). */
  audit: string;
  decidedBy: string;
  rule: string;
  approvers: string[];
  /** When it was decided (the audit entry's `at`). */
  at: string;
}

/** The grant of the decision `row` records; `approvers` are the people who approved (none for a rule). */
export function grantOf(row: AuditDraft, approvers: readonly string[] = []): CallGrant {
  const { entry } = row;
  return {
    audit: row.digest,
    decidedBy: entry.decidedBy,
    rule: entry.rule,
    approvers: [...new Set(approvers)],
    at: entry.at,
  };
}
