import { z } from 'zod';
import { ApprovalQuorum } from '../tools/approval-quorum.js';
import { ApprovalStage, RiskLevel, ToolCategory } from '../tools/tool-types.js';
import { InputKind } from './input-kind.js';
import { UserInteractionOperationType } from './operation-type.js';

/** Who a request belongs to, so a sub-agent's question reaches the right session (F27). */
export const InteractionSession = z.strictObject({
  channel: z.string(),
  sessionId: z.string().optional(),
  chatId: z.string().optional(),
  parentThreadId: z.string().optional(),
  /** Who asked for the thread (`web:alice`), when the surface that started it said so: for separation of duties. */
  requestedBy: z.string().optional(),
});
export type InteractionSession = z.infer<typeof InteractionSession>;

/** What a person is asked to decide about a tool call (F18). */
export const ToolApprovalDetails = z.strictObject({
  toolCallId: z.string(),
  toolName: z.string(),
  toolDescription: z.string(),
  toolParameters: z.record(z.string(), z.unknown()),
  /** The tool's parameters as JSON Schema, so an app can help the approver edit them. */
  parametersSchema: z.record(z.string(), z.unknown()).optional(),
  category: ToolCategory,
  riskLevel: RiskLevel,
  /** The pipeline rule that asked, e.g. `ask:risk:HIGH` or `shell:high-risk:force-push`. */
  rule: z.string(),
  stage: ApprovalStage,
  /** The result awaiting approval, when `stage` is `result`. */
  result: z.unknown().optional(),
  /** Whether "remember for this session" may be offered (MEDIUM risk only). */
  rememberable: z.boolean().default(false),
  /**
   * Set when the tool is pinned (an MCP server's) and its definition changed since a person
   * approved it: the hashes and a diff of the definitions. Server text is untrusted.
   */
  definitionChange: z.strictObject({ previousHash: z.string(), hash: z.string(), diff: z.string() }).optional(),
  /** The calls of one model turn asked about together: same `id`, `index` of `size`. */
  batch: z.strictObject({ id: z.string(), index: z.number().int(), size: z.number().int() }).optional(),
  /** Set when the call needs several approvers (F51): how many, and how many it has. */
  quorum: ApprovalQuorum.optional(),
});
export type ToolApprovalDetails = z.infer<typeof ToolApprovalDetails>;

/** Everything an app needs to ask a person one question. Plain data: it can be stored and sent. */
export const UserInteractionRequest = z.strictObject({
  interactionId: z.string(),
  threadId: z.string(),
  workflowId: z.string(),
  nodeId: z.string(),
  operationType: UserInteractionOperationType,
  prompt: z.string(),
  input: InputKind.optional(),
  /** Milliseconds; `0` means no limit. */
  timeout: z.number().int().nonnegative(),
  /** Absolute deadline (ISO 8601), or null when there is none. */
  deadline: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  session: InteractionSession,
  requestedAt: z.string(),
  toolApproval: ToolApprovalDetails.optional(),
});
export type UserInteractionRequest = z.infer<typeof UserInteractionRequest>;

/** A person's decision on a TOOL_APPROVAL interaction (F18, F19). */
export const ToolApprovalResponse = z.strictObject({
  approved: z.boolean(),
  editedParameters: z.record(z.string(), z.unknown()).optional(),
  userInstruction: z.string().optional(),
  denyReason: z.string().optional(),
  /** Remember this approval for the session (MEDIUM risk only). */
  remember: z.boolean().optional(),
  /**
   * For stage `recovery` (the call started but its outcome is unknown): `done` (it ran; go
   * on), `retry` (run it again), or `fail` (report it failed; the surfaces call it `failed`,
   * and `"failed"` is accepted). `approved: false` means fail; `approved: true` without a
   * resolution is refused: only `retry` runs the call again (issue 37).
   */
  resolution: z.enum(['done', 'retry', 'fail']).optional(),
});
export type ToolApprovalResponse = z.infer<typeof ToolApprovalResponse>;

/**
 * What a handler returns.
 * - `responded`: the raw input; the engine interprets it.
 * - `cancelled`: the person cancelled; the interaction fails with reason `cancelled`.
 * - `deferred`: this handler will not answer now; the interaction stays pending for
 *   another responder (`interlock.respond`) and the thread waits durably.
 */
export const UserInteractionHandlerResult = z.discriminatedUnion('outcome', [
  z.strictObject({ outcome: z.literal('responded'), input: z.unknown(), responder: z.string().optional() }),
  z.strictObject({ outcome: z.literal('cancelled'), reason: z.string().optional() }),
  z.strictObject({ outcome: z.literal('deferred') }),
]);
export type UserInteractionHandlerResult = z.infer<typeof UserInteractionHandlerResult>;
