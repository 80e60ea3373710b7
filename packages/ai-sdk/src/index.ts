/**
 * @packageDocumentation
 * Interlock as the approval layer of the Vercel AI SDK 7 and 6 (F56). Start with {@link interlockApprovals}.
 */
export {
  interlockApprovals,
  InterlockApprovals,
  type AiToolPolicy,
  type ApprovalStatus,
  type ApprovalToolCall,
  type ApprovalsOutcome,
  type InterlockApprovalsOptions,
  type InterlockToolApproval,
} from './interlock-approvals.js';
/** The approval receipt of the call a tool is running (F63): forward it to the service it calls. */
export { currentReceipt } from '@interlock/core';
