import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A person who may answer: a name for the audit trail and the SHA-256 of their token (the token itself is never kept). */
export interface Approver {
  name: string;
  tokenSha256: string;
}

/** Which approvers may answer a workflow's interactions, by workflow id. A workflow not listed may be answered by every approver. */
export type WorkflowApprovers = Readonly<Record<string, readonly string[]>>;

/** What separation of duties covers: tool approvals by risk, and questions. */
export type DutyLevel = 'LOW' | 'MEDIUM' | 'HIGH' | 'QUESTION';

/**
 * Separation of duties, by workflow id (`*` for every workflow): for the levels listed, the
 * person who started a thread may not answer its requests — another approver must.
 */
export type SeparationOfDuties = Readonly<Record<string, readonly DutyLevel[]>>;

/** Whether `level` requests of `workflowId` must be answered by someone other than the requester. */
export function dutiesSeparated(rules: SeparationOfDuties, workflowId: string, level: DutyLevel): boolean {
  return (rules[workflowId] ?? rules['*'] ?? []).includes(level);
}

/** The hex SHA-256 of a token, as kept in the approvers file. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new random token: 32 bytes, base64url. */
export function createToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Finds the approver a token belongs to, comparing hashes in constant time. */
export function findApprover(approvers: readonly Approver[], token: string): Approver | undefined {
  const given = Buffer.from(hashToken(token), 'hex');
  let found: Approver | undefined;
  for (const approver of approvers) {
    const expected = Buffer.from(approver.tokenSha256, 'hex');
    // Every entry is compared, so the time taken does not say which one matched.
    if (expected.length === given.length && timingSafeEqual(expected, given) && found === undefined) found = approver;
  }
  return found;
}

/** Whether `name` may answer (or cancel, or start) threads of `workflowId`. */
export function mayApprove(workflowApprovers: WorkflowApprovers, workflowId: string, name: string): boolean {
  const listed = workflowApprovers[workflowId];
  return listed === undefined || listed.includes(name);
}
