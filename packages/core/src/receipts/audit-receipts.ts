import { readReceipt, type JSONWebKeySet, type ReceiptClaims } from '@interlock/receipts';
import { auditDigest } from '../audit/audit-chain.js';
import type { AuditEntry } from '../audit/audit-log.js';
import { canonicalJson, hashArguments } from '../policy/canonical-arguments.js';
import type { StoredReceipt } from './receipts.js';

/** What the check of an audit trail's receipts found (F63). */
export interface ReceiptAuditCheck {
  /** How many receipts were checked. */
  receipts: number;
  /** True when every one holds. */
  valid: boolean;
  /** Each receipt that does not hold, and why. */
  problems: { jti?: string; threadId?: string; toolCallId?: string; reason: string }[];
}

/**
 * Checks receipts against the audit entries they name (F63), offline: each is signed by a
 * key of `jwks` (as it was when issued: expiry does not matter here), names by its digest an
 * entry of `entries` that allowed exactly its call (thread, call id, tool), and says what
 * that entry says: the arguments (the edited ones, else the proposed ones, which a tool's
 * schema may only have added defaults to), the definition the entry pins, and approvers who
 * each approved the call in the trail.
 */
export async function verifyAuditReceipts(
  entries: readonly AuditEntry[],
  receipts: readonly StoredReceipt[],
  jwks: JSONWebKeySet,
): Promise<ReceiptAuditCheck> {
  const byDigest = new Map(entries.map((entry) => [auditDigest(entry), entry]));
  const problems: ReceiptAuditCheck['problems'] = [];
  for (const receipt of receipts) {
    let claims: ReceiptClaims;
    try {
      claims = await readReceipt(receipt.token, jwks);
    } catch (error) {
      problems.push({ reason: `a receipt does not verify: ${error instanceof Error ? error.message : String(error)}` });
      continue;
    }
    const reason = mismatch(claims, receipt, byDigest.get(claims.audit), entries);
    if (reason !== undefined)
      problems.push({ jti: claims.jti, threadId: claims.thread, toolCallId: claims.call, reason });
  }
  return { receipts: receipts.length, valid: problems.length === 0, problems };
}

/** Why a signed receipt does not match the audit entry it names, or undefined. */
function mismatch(
  claims: ReceiptClaims,
  receipt: StoredReceipt,
  entry: AuditEntry | undefined,
  entries: readonly AuditEntry[],
): string | undefined {
  if (entry === undefined) return 'the audit entry it names is not in the trail (removed, or changed)';
  if (entry.outcome !== 'allow') return 'the audit entry it names denied the call';
  if (entry.threadId !== claims.thread || entry.toolCallId !== claims.call || entry.toolName !== claims.tool)
    return 'the audit entry it names is about another call';
  if (entry.toolDefinitionHash !== undefined && entry.toolDefinitionHash !== claims.def)
    return 'it names another definition of the tool than the audit entry';
  const audited = entry.editedArguments ?? entry.originalArguments;
  const ran = receipt.arguments ?? audited;
  if (hashArguments(ran) !== claims.args) return 'its arguments are not the ones kept with it';
  if (receipt.arguments !== undefined && !fillsIn(audited, receipt.arguments, entry.editedArguments !== undefined))
    return 'the arguments it approves are not the audited ones';
  const approved = new Set(
    entries
      .filter(
        (other) => other.threadId === claims.thread && other.toolCallId === claims.call && other.outcome === 'allow',
      )
      .map((other) => other.responder),
  );
  const stranger = claims.approvers.find((approver) => !approved.has(approver));
  if (stranger !== undefined) return `it names an approver the trail does not show approving the call (${stranger})`;
  return undefined;
}

/** Whether `ran` are the `audited` arguments (exactly, for an edit; else with only defaults added). */
function fillsIn(audited: Record<string, unknown>, ran: Record<string, unknown>, exact: boolean): boolean {
  if (exact) return canonicalJson(audited) === canonicalJson(ran);
  return Object.entries(audited).every(
    ([name, value]) => name in ran && canonicalJson(ran[name]) === canonicalJson(value),
  );
}
