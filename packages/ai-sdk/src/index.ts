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
