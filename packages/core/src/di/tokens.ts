import type { ServiceIdentifier } from 'inversify';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import type { AuditLog } from '../audit/audit-log.js';
import type { MessageBus } from '../policy/message-bus.js';
import type { Clock } from '../engine/clock.js';
import type { INodeExecutor } from '../engine/node-executor.js';
import type { EventBus } from '../events/event-bus.js';
import type { ModelProvider } from '../llm/model-provider.js';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { ResolvedApprovalOptions } from '../policy/approval-options.js';
import type { ShellClassifierPort } from '../policy/decide-approval.js';
import type { Receipts } from '../receipts/receipts.js';
import type { RunTelemetry } from '../telemetry/run-telemetry.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`interlock.${name}`);

/**
 * The container's tokens. Rebind one in `createInterlock({ configureContainer })` to
 * replace a service, e.g. `container.rebind(TYPES.Clock).toConstantValue(myClock)`.
 */
export const TYPES = {
  CheckpointStore: token<ICheckpointStore>('CheckpointStore'),
  EventBus: token<EventBus>('EventBus'),
  WorkflowRegistry: token<WorkflowRegistry>('WorkflowRegistry'),
  ToolRegistry: token<ToolRegistry>('ToolRegistry'),
  NodeExecutor: token<INodeExecutor>('NodeExecutor'),
  Models: token<Readonly<Record<string, ModelProvider>>>('Models'),
  Handlers: token<Map<string, IUserInteractionHandler>>('Handlers'),
  Clock: token<Clock>('Clock'),
  ApprovalOptions: token<ResolvedApprovalOptions>('ApprovalOptions'),
  ShellClassifier: token<ShellClassifierPort>('ShellClassifier'),
  AuditLog: token<AuditLog>('AuditLog'),
  MessageBus: token<MessageBus>('MessageBus'),
  /** The directory file and shell tools are confined to. */
  WorkspaceRoot: token<string>('WorkspaceRoot'),
  /** Traces and metrics of runs (F59): inert until the application installs an OpenTelemetry SDK. */
  RunTelemetry: token<RunTelemetry>('RunTelemetry'),
  /** Approval receipts (F63): signing, the deployment's keys, the check of an audit's receipts. */
  Receipts: token<Receipts>('Receipts'),
  ApprovalPolicy: Symbol.for('interlock.ApprovalPolicy'),
  ResponseInterpreter: Symbol.for('interlock.ResponseInterpreter'),
  InteractionGateway: Symbol.for('interlock.InteractionGateway'),
  ToolCallPipeline: Symbol.for('interlock.ToolCallPipeline'),
  NodeExecutionCoordinator: Symbol.for('interlock.NodeExecutionCoordinator'),
  UserInteractionCoordinator: Symbol.for('interlock.UserInteractionCoordinator'),
  LLMExecutionCoordinator: Symbol.for('interlock.LLMExecutionCoordinator'),
  ThreadRunner: Symbol.for('interlock.ThreadRunner'),
  InteractionResponses: Symbol.for('interlock.InteractionResponses'),
  ThreadClaims: Symbol.for('interlock.ThreadClaims'),
  JobPlanner: Symbol.for('interlock.JobPlanner'),
} as const;
