import { auditDigest } from '../audit/audit-chain.js';
import type { Interlock } from '../interlock.js';
import { canonicalJson } from '../policy/canonical-arguments.js';
import type { GateCall, GateDecision, GatePending } from './gate-decisions.js';

/**
 * The approval receipt of a call an agent's framework is about to run on the gate's
 * decision (F63): signed now, kept with the decision thread's audit, naming the decision's
 * audit entry and every approver. None unless `decision` lets exactly `call` run (the
 * caller checked with `letsRun`), or when receipts are off.
 */
export async function gateReceipt(
  interlock: Interlock,
  decision: GateDecision | GatePending,
  call: Pick<GateCall, 'toolName' | 'arguments'>,
  definitionHash: string,
): Promise<string | undefined> {
  if (!interlock.receipts.enabled || decision.status !== 'approved') return undefined;
  const { threadId } = decision;
  // The entry of the decision that stands: an allow, not a partial approval of a quorum, not an attempt.
  const entry = (await interlock.audit({ threadId }))
    .filter((entry) => entry.outcome === 'allow' && entry.decidedBy !== 'attempt' && entry.rule !== 'quorum:partial')
    .at(-1);
  if (entry === undefined) return undefined;
  const answered = (await interlock.interactions({ threadId }))
    .filter((record) => record.response !== undefined)
    .at(-1);
  const approvers = [
    ...(answered?.quorum?.approvals.map((approval) => approval.responder) ?? []),
    ...(answered?.response?.responder === undefined ? [] : [answered.response.responder]),
  ];
  const audited = entry.editedArguments ?? entry.originalArguments;
  const thread = await interlock.thread(threadId);
  return interlock.receipts.issueAndKeep({
    threadId,
    // The call as the decision thread's audit knows it (the framework's id is recorded there too, and proves nothing).
    toolCallId: entry.toolCallId,
    toolName: call.toolName,
    definitionHash,
    arguments: call.arguments,
    argumentsDiffer: canonicalJson(audited) !== canonicalJson(call.arguments),
    epoch: thread?.epoch ?? 0,
    grant: {
      audit: auditDigest(entry),
      decidedBy: entry.decidedBy,
      rule: entry.rule,
      approvers: entry.decidedBy === 'person' ? [...new Set(approvers)] : [],
      at: entry.at,
    },
  });
}
