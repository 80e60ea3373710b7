import type { JSONWebKeySet } from '@interlock/receipts';
import type { Clock } from '../engine/clock.js';
import type { AuditEntry } from '../audit/audit-log.js';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { GlobalChange, GlobalsKeeper } from '../persistence/unit-of-work.js';
import { hashArguments } from '../policy/canonical-arguments.js';
import type { CallGrant } from './receipt-grant.js';
import { ReceiptKeyRing, type ReceiptKeyInfo } from './receipt-keys.js';
import type { ResolvedReceiptOptions } from './receipt-options.js';
import { verifyAuditReceipts, type ReceiptAuditCheck } from './audit-receipts.js';
import { signReceiptNow } from './sign-now.js';

/** Where a thread's receipts are kept: a global-variable scope of its own, no workflow id can take. */
export const receiptsScope = (threadId: string): string => `interlock:receipts:${threadId}`;

/** A receipt as the store keeps it, beside its thread's audit. */
export interface StoredReceipt {
  token: string;
  /**
   * The arguments the call ran with, when they are not the ones its audit entry records
   * (the tool's schema filled in a default): `audit verify` checks the receipt against them.
   */
  arguments?: Record<string, unknown>;
}

/** What a receipt is issued for: one call about to run, and the decision that let it. */
export interface ReceiptSubject {
  threadId: string;
  toolCallId: string;
  toolName: string;
  /** The tool's definition pin (its definition hash). */
  definitionHash: string;
  /** The exact arguments that run. */
  arguments: Record<string, unknown>;
  /** Whether they differ from the ones the decision's audit entry records (kept with the receipt then). */
  argumentsDiffer: boolean;
  /** The claim fence's epoch the call runs under. */
  epoch: number;
  grant: CallGrant;
}

/** A receipt just signed, and the write that keeps it (in the commit before the call runs). */
export interface IssuedReceipt {
  token: string;
  jti: string;
  change: GlobalChange;
}

/**
 * Approval receipts (F63): signs a receipt for each call that is about to run on an
 * approval, keeps it beside the thread's audit, and gives the deployment's keys (the JWKS
 * services check receipts against, rotation) and the check of an audit trail's receipts.
 */
export class Receipts {
  readonly keys: ReceiptKeyRing;

  constructor(
    private readonly store: Pick<ICheckpointStore, 'getGlobalVariables'>,
    /** Writes the keys, and the receipts of calls run outside a thread's run: the answer desk. */
    private readonly desk: GlobalsKeeper,
    private readonly clock: Clock,
    readonly options: ResolvedReceiptOptions,
  ) {
    this.keys = new ReceiptKeyRing(store, desk, clock, { ttlSeconds: options.ttlSeconds, given: options.key });
  }

  /** Whether this process issues receipts (`receipts.enabled`, default true). */
  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Signs the receipt of a call about to run. The caller commits `change` before the call runs. */
  async issue(subject: ReceiptSubject): Promise<IssuedReceipt> {
    const key = await this.keys.signingKey();
    const jti = crypto.randomUUID();
    const { grant } = subject;
    const token = signReceiptNow(
      {
        tool: subject.toolName,
        def: subject.definitionHash,
        args: hashArguments(subject.arguments),
        thread: subject.threadId,
        call: subject.toolCallId,
        fence: subject.epoch,
        approvers: grant.approvers,
        decidedBy: grant.decidedBy,
        rule: grant.rule,
        decidedAt: grant.at,
        audit: grant.audit,
      },
      key,
      { issuer: this.options.issuer, now: this.clock.now(), ttlSeconds: this.options.ttlSeconds, jti },
    );
    const value: StoredReceipt = { token, ...(subject.argumentsDiffer ? { arguments: subject.arguments } : {}) };
    return { token, jti, change: { kind: 'set', scope: receiptsScope(subject.threadId), name: jti, value } };
  }

  /** Signs and keeps at once (a call run outside a thread's run: an adapter's tool). */
  async issueAndKeep(subject: ReceiptSubject): Promise<string> {
    const issued = await this.issue(subject);
    await this.desk.keepGlobals([issued.change]);
    return issued.token;
  }

  /** The receipts kept for the threads `threadIds`. */
  async ofThreads(threadIds: Iterable<string>): Promise<StoredReceipt[]> {
    const receipts: StoredReceipt[] = [];
    for (const threadId of new Set(threadIds))
      receipts.push(
        ...(Object.values(await this.store.getGlobalVariables(receiptsScope(threadId))) as StoredReceipt[]),
      );
    return receipts;
  }

  /** The public keys services check receipts against (`/.well-known/jwks.json`, `interlock receipts keys`). */
  jwks(): Promise<JSONWebKeySet> {
    return this.keys.jwks();
  }

  /** Every key of the deployment, newest first (without private halves). */
  list(): Promise<ReceiptKeyInfo[]> {
    return this.keys.list();
  }

  /** Checks the receipts kept for `entries`' threads against them and the JWKS (see {@link verifyAuditReceipts}). */
  async verify(entries: readonly AuditEntry[]): Promise<ReceiptAuditCheck> {
    const receipts = await this.ofThreads(entries.map((entry) => entry.threadId));
    return verifyAuditReceipts(entries, receipts, await this.keys.archive());
  }
}
