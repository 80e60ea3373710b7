import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApproverLevel, UserInteractionRequest, WorkflowApproverRule } from '@interlock/sdk-types';

/**
 * A machine or person with a token from the approvers file: a name for the audit trail, the
 * SHA-256 of their token (the token itself is never kept) and the groups the file gives them.
 */
export interface Approver {
  name: string;
  tokenSha256: string;
  groups?: readonly string[];
}

/** Who is asking, as the server knows them now: their name, and their groups (the file's, or the identity provider's claim). */
export interface Principal {
  name: string;
  groups: readonly string[];
}

/**
 * Who may answer a workflow's interactions, by workflow id: names and `group:<name>`, for every
 * level or per level (F51). A workflow not listed may be answered by every approver.
 */
export type WorkflowApprovers = Readonly<Record<string, WorkflowApproverRule>>;

/** What separation of duties and per-risk lists cover: tool approvals by risk, and questions. */
export type DutyLevel = ApproverLevel;

/** The prefix that makes an entry of an approver list name a group. */
export const GROUP_PREFIX = 'group:';

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

/** The level a request is answered at: its call's risk, or `QUESTION`. */
export function levelOf(request: Pick<UserInteractionRequest, 'toolApproval'>): DutyLevel {
  return request.toolApproval?.riskLevel ?? 'QUESTION';
}

/** Whether `list` names `principal`, by name or by one of their groups. */
export function listNames(list: readonly string[], principal: Principal): boolean {
  return list.some((entry) =>
    entry.startsWith(GROUP_PREFIX)
      ? principal.groups.includes(entry.slice(GROUP_PREFIX.length))
      : entry === principal.name,
  );
}

/**
 * Whether `principal` may answer `level` requests of `workflowId` — or, without a level, see
 * its threads, start and cancel them (on any of its lists). A level with no list and no
 * `default` is answered by nobody.
 */
export function mayApprove(
  workflowApprovers: WorkflowApprovers,
  workflowId: string,
  principal: Principal,
  level?: DutyLevel,
): boolean {
  const rule = workflowApprovers[workflowId];
  if (rule === undefined) return true;
  if (Array.isArray(rule)) return listNames(rule, principal);
  const lists: readonly (readonly string[] | undefined)[] =
    level === undefined ? Object.values(rule) : [rule[level] ?? rule.default];
  return lists.some((list) => list !== undefined && listNames(list, principal));
}
