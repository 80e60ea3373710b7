/**
 * @packageDocumentation
 * Interlock's engine. Start with {@link createInterlock}.
 */
export { createInterlock, Interlock } from './interlock.js';
export type { InterlockOptions } from './interlock-options.js';
export { DEFAULT_SQLITE_PATH, type StoreOptions } from './persistence/open-store.js';
export { openStore, resolveStoreOptions } from './interlock-store.js';
export { createTypeormStore } from './persistence/typeorm-on-demand.js';
export type { PostgresTimeouts, TypeormStoreOptions } from './persistence/typeorm/create-typeorm-store.js';
export type { PostgresCheckpointStore } from './persistence/typeorm/postgres-checkpoint-store.js';
export { openSqliteStore, type SqliteStoreOptions } from './persistence/sqlite/open-sqlite-store.js';
export type { SqliteCheckpointStore } from './persistence/sqlite/sqlite-checkpoint-store.js';
export type { ThreadHandle } from './engine/thread-handle.js';
export type { ThreadOutcome } from './engine/thread-outcome.js';
export type { Continuation, RespondResult, StartOptions } from './engine/thread-runner.js';
export {
  ANSWER_OUTCOMES,
  PLANS_OF_OUTCOME,
  answerFailureOf,
  answerOutcomeOf,
  type AnswerOutcome,
} from './engine/answer-outcome.js';
export type { AnswerPlanKind } from './engine/answer-plan.js';
export { InterlockError, isStoreFailure, toInterlockError } from './errors/interlock-error.js';
export { parseJsonStrictly, MAX_JSON_DEPTH } from './json/parse-json-strictly.js';
export {
  defineHandler,
  approve,
  reject,
  type ToolApprovalAnswer,
  type IUserInteractionHandler,
  type UserInteractionContext,
  type UserInteractionHandlerResult,
  type UserInteractionRequest,
  type ToolApprovalResponse,
} from './interaction/define-handler.js';
export {
  findProjectConfig,
  loadProjectConfig,
  parseProjectConfig,
  mergeApprovalLayers,
  approvalLayerOf,
  resolveFromConfig,
  PROJECT_CONFIG_FILES,
  type LoadedProjectConfig,
  type ApprovalLayer,
  type ConfigIssue,
} from './config/project-config.js';
export {
  optionsFromProjectConfig,
  mcpServersOf,
  modelFromProjectConfig,
  storeFromProjectConfig,
  type ProjectOptions,
} from './config/project-options.js';
export { checkProjectConfig, checkProjectConfigFile, type ProjectConfigCheck } from './config/check-project-config.js';
export { ofType, forThread, forInteraction } from './events/event-operators.js';
export { TYPES } from './di/tokens.js';
export type { INodeExecutor, NodeExecutionContext, NodeOutcome } from './engine/node-executor.js';
export { steadyClock, type Clock } from './engine/clock.js';
export {
  checkReadiness,
  readinessAnswer,
  storeReadiness,
  READINESS_TIMEOUT_MS,
  type ReadinessCheck,
  type ReadinessReport,
  type StoreReadiness,
} from './health/readiness.js';
export { listenForHealth, type HealthListener } from './workers/health-listener.js';
export type { ModelProvider, ModelRequest, ModelResponse, ModelToolCall, ToolSpec } from './llm/model-provider.js';
export {
  defineTool,
  type Tool,
  type ToolDefinition,
  type ToolContext,
  type NeedsApprovalContext,
} from './tools/define-tool.js';
export {
  McpServerConnection,
  connectMcpServers,
  mcpToolName,
  mcpDefinitionHash,
  type McpServerOptions,
  type McpTransportOptions,
  type McpToolDefinition,
  type McpListedTool,
  type McpServerDown,
} from './mcp/mcp-client.js';
export { mapMcpTool, type McpToolPolicy, type McpAnnotations } from './mcp/mcp-policy.js';
export {
  createApprovalMcpServer,
  approvalServerWorkflows,
  DEFAULT_AGENT_ANSWER_TIMEOUT_MS,
  holdUntilAnsweredElsewhere,
  MCP_CHANNEL,
  MCP_PERMISSION_WORKFLOW_ID,
  MCP_QUESTION_WORKFLOW_ID,
  type ApprovalServerOptions,
  type ApprovalServerWorkflowOptions,
} from './mcp/approval-server.js';
export { agentTool, CLAUDE_CODE_TOOLS } from './mcp/agent-tools.js';
export { createApprovalService, type ApprovalServiceOptions } from './mcp/approval-service.js';
export { BoundedStdioServerTransport, MAX_STDIO_MESSAGE_BYTES } from './mcp/bounded-stdio-transport.js';
export {
  checkHttpRequest,
  isLoopbackHost,
  type HttpGuardOptions,
  type HttpGuardVerdict,
} from './mcp/http-request-guard.js';
export { ToolPins, pinState, lineDiff, TOOL_PINS_SCOPE, type ToolPin, type PinState } from './tools/tool-pins.js';
export {
  builtinTools,
  readFileTool,
  listDirTool,
  writeFileTool,
  editFileTool,
  bashTool,
  httpFetchTool,
  askUserTool,
} from './tools/builtin/index.js';
export type { ApprovalOptions, ApprovalMode, ToolUse, ToolApproveResult } from './policy/approval-options.js';
export {
  decideApproval,
  type ApprovalDecision,
  type ApprovalOutcome,
  type ApprovalCall,
  type RuleStep,
  type ShellClassifierPort,
} from './policy/decide-approval.js';
export {
  createShellClassifier,
  DEFAULT_SAFE_PROGRAMS,
  DEFAULT_BANNED_RULES,
  DEFAULT_HIGH_RISK_RULES,
  HIDDEN_EFFECT_RULE,
  unseen,
  type ArgumentProblem,
  type UnseenEffect,
  type SafeProgramRule,
  type ShellClassifier,
  type ShellClassification,
  type ShellVerdict,
  type ShellPolicyOptions,
  type ShellRule,
} from './policy/shell/index.js';
export { canonicalJson, hashArguments } from './policy/canonical-arguments.js';
export { Receipts, receiptsScope, type StoredReceipt, type ReceiptSubject } from './receipts/receipts.js';
export { RECEIPT_KEYS_SCOPE, type ReceiptKeyInfo, type StoredReceiptKey } from './receipts/receipt-keys.js';
export { RECEIPT_KEY_ENV, type ReceiptOptions } from './receipts/receipt-options.js';
export { currentReceipt, runWithReceipts, receiptInScope, type ScopedReceipt } from './receipts/receipt-scope.js';
export { verifyAuditReceipts, type ReceiptAuditCheck } from './receipts/audit-receipts.js';
export type { CallGrant } from './receipts/receipt-grant.js';
export { MessageBus, type ToolApprovalBusRequest } from './policy/message-bus.js';
export {
  verifyAuditChain,
  type AuditAnchor,
  type AuditEntry,
  type AuditEntryInput,
  type AuditEvidence,
  type AuditExport,
  type AuditThreadHead,
  type AuditVerification,
} from './audit/audit-log.js';
export { auditDigest, auditLink, nextAnchor, GENESIS as AUDIT_GENESIS } from './audit/audit-chain.js';
export { scriptedModel, type ScriptedModel, type ScriptedTurn } from './llm/scripted-model.js';
export { openAICompatible, type OpenAICompatibleOptions } from './llm/openai-compatible.js';
export { anthropic, type AnthropicOptions } from './llm/anthropic.js';
export type {
  ICheckpointStore,
  StoredThread,
  RememberedApprovals,
  StoredAuditEvidence,
  ThreadRecord,
  LiveThread,
  CompletedThread,
  FailedThread,
  CancelledThread,
  FinishedThread,
  ActiveNode,
  ThreadStatus,
  InteractionRecord,
  InteractionResponseRecord,
  GivenApproval,
  QuorumProgress,
  StoreChange,
  Frame,
  LoopState,
  AuditHead,
  ClaimFence,
  ThreadLease,
  ToolExecutionRecord,
  ToolExecutionStatus,
  UnitOfWork,
  CommitResult,
  Conflict,
  ThreadChange,
  ClaimChange,
  InteractionChange,
  ToolCallChange,
  ToolCallDraft,
  GlobalChange,
  GlobalsKeeper,
  AuditDraft,
} from './persistence/checkpoint-store.js';
export { isEmptyUnit } from './persistence/unit-of-work.js';
export { requestWithProgress, personOf, askerOf } from './policy/approval-quorum.js';
export { NO_RESPONDER_CHANNEL } from './coordinators/user-interaction-coordinator.js';
export { interpretInput } from './interaction/interpret-input.js';
export { renderTemplate, evaluateExpression } from './expressions/expressions.js';
export type { WorkflowIssue } from './workflow/workflow-issues.js';
export { createWorker, type InterlockWorker, type WorkerOptions } from './workers/worker.js';
export type { ContinueIn } from './workers/job-planner.js';
export { servedVersions, servedWorkflows, type ServedWorkflow } from './workers/served-workflows.js';
export type { ThreadJob, ThreadJobKind } from './workers/thread-jobs.js';
export type { JobReport } from './workers/job-consumers.js';
export type { JobOutcome } from './workers/job-runner.js';
export { createApprovalGate } from './approval-gate/create-approval-gate.js';
export {
  continuationThreadId,
  ApprovalGate,
  type ApprovalGateOptions,
  type GateContinuation,
  type GateDecideOptions,
  type GateOutcome,
  type GatePause,
} from './approval-gate/approval-gate.js';
export {
  decidedExactly,
  letsRun,
  mismatchOf,
  type GateCall,
  type GateDecision,
  type GateDecisionCall,
  type GatePending,
} from './approval-gate/gate-decisions.js';
export { UNKNOWN_GATE_TOOL, type GateToolPolicy } from './approval-gate/gate-tools.js';
export { CLAUDE_CODE_TOOL_SCHEMAS } from './approval-gate/claude-code-schemas.js';
export {
  DEFAULT_GATE_APPROVAL_TIMEOUT_MS,
  gateWorkflowIds,
  gateWorkflows,
  type GateWorkflowIds,
} from './approval-gate/gate-workflows.js';
