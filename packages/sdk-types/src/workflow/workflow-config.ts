import { z } from 'zod';
import { QuorumConfig } from '../tools/approval-quorum.js';
import { Duration } from './duration.js';

/** The tool-approval block of a workflow (F17). Fixed for the life of a run. */
export const ToolApprovalConfig = z.strictObject({
  /** Tools that run without asking anybody. Everything else asks. */
  autoApprovedTools: z.array(z.string()).default([]),
  /** How long to wait for an approver; `0` waits until answered. */
  approvalTimeout: Duration.default(30_000),
  /** N-of-M approvals for risky calls (F51); with the instance's `approval.quorum`, the stricter of both. */
  quorum: QuorumConfig.optional(),
});
export type ToolApprovalConfig = z.infer<typeof ToolApprovalConfig>;

export const WorkflowConfig = z.strictObject({
  /** Default timeout of every interaction in this workflow; `0` waits until answered. */
  timeout: Duration.default(0),
  /** The most nodes one thread may execute before it fails with MAX_STEPS_EXCEEDED. */
  maxSteps: z.number().int().positive().default(1_000),
  toolApproval: ToolApprovalConfig.default({ autoApprovedTools: [], approvalTimeout: 30_000 }),
});
export type WorkflowConfig = z.infer<typeof WorkflowConfig>;
