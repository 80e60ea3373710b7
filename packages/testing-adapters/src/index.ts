/**
 * @packageDocumentation
 * What the framework adapters' tests share (a private workspace package, never published):
 * the built `interlock` command run as a person at another terminal runs it, the ledger the
 * tests' tools write what they ran to, a harness and the cases every agent framework holds,
 * the case across processes, and the refund service behind approval receipts.
 */
export { interlockCli, type CliOutcome } from './interlock-cli.js';
export { ledgerAt, unaudited, type Ledger, type LedgerLine, type LedgerLineOfProcess } from './ledger.js';
export {
  agentHarness,
  chatModelPerTest,
  projectRules,
  type AgentDriver,
  type AgentHarness,
  type AgentPlace,
  type CaseOptions,
  type Guarded,
  type GuardedAgent,
  type RunOutcome,
} from './agent-harness.js';
export {
  appliesLateApprovalAndTimesOut,
  asksAgainForAnEditedId,
  decidesByTheProjectRules,
  decidesReusedIdOnItsOwn,
  decidesTwoCallsUnderOneId,
  editedIdScript,
  keepsTheFirstReasonFromTheCli,
  refusesBannedAndToldReason,
  tellsOfALateAnswerFromTheCli,
} from './agent-cases.js';
export { acrossProcesses, type AcrossProcessesCase, type ModelMessage } from './across-processes.js';
export { REFUND_ARGUMENTS, REFUND_TURNS, refundDesk } from './refund-desk.js';
