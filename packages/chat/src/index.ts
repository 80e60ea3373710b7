/**
 * @packageDocumentation
 * The chat channel of the web app (F16, F31, F32): tool approvals as messages in the
 * conversation, answered with a plain yes or no that never reaches the agent. See README.md.
 */
export { ChatChannel } from './chat-channel.js';
export {
  classifyApprovalReply,
  parseApprovalReply,
  type ApprovalReply,
  type ApprovalTargets,
  type ParsedApprovalReply,
} from './approval-reply.js';
export type {
  ChatApprovalStatus,
  ChatChannelOptions,
  ChatEntry,
  ChatNoticeReason,
  ReceiveResult,
} from './chat-types.js';
export {
  chatDemoWorkflow,
  chatDemoModel,
  chatDemoTools,
  CHAT_DEMO_WORKFLOW_ID,
  CHAT_DEMO_NOTES,
  CHAT_DEMO_TODO,
  type ChatDemoWorkflowOptions,
} from './chat-demo.js';
export { ChatPlatformBridge, type ChatPlatformBridgeOptions } from './platform-bridge.js';
export { askerOf, readAsker } from './chat-reads.js';
export type {
  ActionOutcome,
  ApprovalCard,
  ChatPlatform,
  InboundAction,
  InboundMessage,
  PostedRef,
} from './chat-platform.js';
export type { ApprovalAction, DecideResult } from './chat-decisions.js';
export type { RefusedRequestNames } from './platform-bridge.js';
export { showInvisibles, argumentsForDisplay, clip } from './safe-text.js';
export {
  ReplayGuard,
  hmacSha256Hex,
  readRawBody,
  refusalText,
  MAX_PLATFORM_BODY,
  sameDigest,
  secretFromEnvironment,
  sha256Hex,
  type RefusedRequest,
} from './request-verification.js';
export { RateLimit } from './rate-limit.js';
export { KeyedLock } from './keyed-lock.js';
