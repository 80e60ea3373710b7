/**
 * @packageDocumentation
 * Interlock's shared contract: zod schemas and the types inferred from them, under the
 * same names. No runtime beyond zod; no Node APIs.
 */
export { Duration } from './workflow/duration.js';
export {
  ProjectConfig,
  ProjectStoreConfig,
  ProjectModelConfig,
  ProjectShellRule,
  ProjectShellConfig,
  ProjectApprovalConfig,
  ProjectApproversConfig,
  ProjectChatConfig,
  ProjectSlackConfig,
  ProjectFeishuConfig,
  ProjectWhatsAppConfig,
  ProjectMcpServerConfig,
  ProjectMcpToolPolicy,
  ProjectTelemetryConfig,
  ProjectReceiptsConfig,
} from './config/project-config.js';
export {
  ApproverLevel,
  ApproverName,
  ProjectAuthConfig,
  ProjectOidcConfig,
  WorkflowApproverRule,
} from './config/auth-config.js';
export { VariableScope, VariableName, VariableDeclaration, VariableAssignment } from './workflow/variables.js';
export { ToolApprovalConfig, WorkflowConfig } from './workflow/workflow-config.js';
export { WorkflowEdge, WorkflowDefinition, type WorkflowDefinitionInput } from './workflow/workflow-definition.js';
export {
  NodeId,
  StartNodeConfig,
  EndNodeConfig,
  LlmNodeConfig,
  RouteBranch,
  RouteNodeConfig,
  VariableNodeConfig,
  ToolNodeConfig,
  LoopNodeConfig,
  SubgraphNodeConfig,
  WorkflowNode,
  type NodeType,
  type NodeOfType,
} from './nodes/node-configs.js';
export { MessageRole, ToolCall, Message } from './conversation/message.js';
export { ToolCategory, RiskLevel, ToolCallStatus, ApprovalStage } from './tools/tool-types.js';
export { QuorumConfig, QuorumEscalation, ApprovalQuorum, type QuorumConfigInput } from './tools/approval-quorum.js';
export { InputKind } from './interaction/input-kind.js';
export {
  UserInteractionOperationType,
  InteractionFailureReason,
  InteractionStatus,
} from './interaction/operation-type.js';
export { InteractionMessageTemplate, UserInteractionNodeConfig } from './interaction/user-interaction-node-config.js';
export {
  InteractionSession,
  ToolApprovalDetails,
  UserInteractionRequest,
  ToolApprovalResponse,
  UserInteractionHandlerResult,
} from './interaction/user-interaction-request.js';
export type {
  Subscribable,
  UserInteractionContext,
  IUserInteractionHandler,
} from './interaction/user-interaction-handler.js';
export { ThreadError, InterlockEvent, type InterlockEventType, type EventOfType } from './events/events.js';
export { ErrorCode } from './errors/error-codes.js';
