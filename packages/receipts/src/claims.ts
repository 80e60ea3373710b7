import { ReceiptError } from './receipt-error.js';

/** The JWS `typ` of a receipt: a service refuses any other token signed with the same key. */
export const RECEIPT_TYPE = 'interlock-receipt+jwt';

/** The algorithm receipts are signed with: EdDSA over Ed25519. */
export const RECEIPT_ALGORITHM = 'EdDSA';

/** The HTTP header a receipt travels in (Interlock's `http_fetch` tool sends it; a service reads it). */
export const RECEIPT_HEADER = 'Interlock-Receipt';

/** The key of a receipt in an MCP request's `_meta` (`tools/call`). */
export const RECEIPT_META_KEY = 'interlock/receipt';

/**
 * What a receipt says (F63): which call, exactly, was approved, by whom, under which rule, and
 * where the audit records it. A receipt is signed right before the call runs, after the
 * approval was committed; a denied or unanswered call has none.
 */
export interface ReceiptClaims {
  /** Who issued it: the deployment (default `interlock`). */
  iss: string;
  /** Its unique id: a service that takes each receipt once remembers it until `exp`. */
  jti: string;
  /** When it was issued (seconds since the epoch). */
  iat: number;
  /** Until when it may be used (seconds since the epoch). */
  exp: number;
  /** The tool, by the name Interlock gives it (`http_fetch`, `mcp__billing__refund`, an adapter's tool name). */
  tool: string;
  /** The pin of the tool's definition the call was decided under: SHA-256 (hex) of what defines it for an approver. */
  def: string;
  /** SHA-256 (hex) of the canonical JSON of the exact arguments that run (after an approver's edit, the edited ones). */
  args: string;
  /** The Interlock thread the call belongs to. */
  thread: string;
  /** The tool call's id in that thread. */
  call: string;
  /** The claim fence the call runs under: the thread's fencing epoch (only goes up). */
  fence: number;
  /** Who approved it: every approver of a quorum; empty when a rule or a callback decided. */
  approvers: string[];
  /** Who decided: `person`, a rule (`category:read`, `memory:session`…) or a callback (`callback:onToolApprove`). */
  decidedBy: string;
  /** The approval rule the decision went through (the one that asked, for a person's decision). */
  rule: string;
  /** When it was decided (ISO 8601). */
  decidedAt: string;
  /** SHA-256 (hex) of the audit entry that records the decision (its content digest, `auditDigest`). */
  audit: string;
}

const TEXT_CLAIMS = [
  'iss',
  'jti',
  'tool',
  'def',
  'args',
  'thread',
  'call',
  'decidedBy',
  'rule',
  'decidedAt',
  'audit',
] as const;
const NUMBER_CLAIMS = ['iat', 'exp', 'fence'] as const;

/** The claims of a verified payload, or RECEIPT_MALFORMED when one is missing or of the wrong kind. */
export function receiptClaimsOf(payload: Record<string, unknown>): ReceiptClaims {
  for (const name of TEXT_CLAIMS)
    if (typeof payload[name] !== 'string')
      throw new ReceiptError(
        'RECEIPT_MALFORMED',
        `the receipt has no ${name} (a string): it is not an Interlock receipt`,
      );
  for (const name of NUMBER_CLAIMS)
    if (typeof payload[name] !== 'number' || !Number.isFinite(payload[name]))
      throw new ReceiptError(
        'RECEIPT_MALFORMED',
        `the receipt has no ${name} (a number): it is not an Interlock receipt`,
      );
  const approvers = payload['approvers'];
  if (!Array.isArray(approvers) || !approvers.every((approver) => typeof approver === 'string'))
    throw new ReceiptError(
      'RECEIPT_MALFORMED',
      'the receipt has no approvers (a list of names): it is not an Interlock receipt',
    );
  return payload as unknown as ReceiptClaims;
}
