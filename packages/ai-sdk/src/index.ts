/**
 * @packageDocumentation
 * Interlock as the approval layer of the Vercel AI SDK 6 (F56). Start with {@link interlockApprovals}.
 */
export {
  interlockApprovals,
  InterlockApprovals,
  type AiToolPolicy,
  type ApprovalsOutcome,
  type InterlockApprovalsOptions,
} from './interlock-approvals.js';
