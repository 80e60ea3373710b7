import type { ServiceIdentifier } from 'inversify';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import type { EventBus } from '../events/event-bus.js';
import type { INodeExecutor } from '../engine/node-executor.js';
import type { ICheckpointStore } from '../persistence/checkpoint-store.js';
import type { ModelProvider } from '../llm/model-provider.js';
import type { WorkflowRegistry } from '../workflow/workflow-registry.js';
import type { Clock } from '../engine/clock.js';

const token = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`interlock.${name}`);

/**
 * The container's tokens. Rebind one to replace a service, e.g.
 * `container.rebind(TYPES.CheckpointStore).toConstantValue(myStore)`.
 */
export const TYPES = {
  CheckpointStore: token<ICheckpointStore>('CheckpointStore'),
  EventBus: token<EventBus>('EventBus'),
  WorkflowRegistry: token<WorkflowRegistry>('WorkflowRegistry'),
  NodeExecutor: token<INodeExecutor>('NodeExecutor'),
  Models: token<Readonly<Record<string, ModelProvider>>>('Models'),
  Handlers: token<Map<string, IUserInteractionHandler>>('Handlers'),
  Clock: token<Clock>('Clock'),
  NodeExecutionCoordinator: Symbol.for('interlock.NodeExecutionCoordinator'),
  UserInteractionCoordinator: Symbol.for('interlock.UserInteractionCoordinator'),
  LLMExecutionCoordinator: Symbol.for('interlock.LLMExecutionCoordinator'),
  ThreadRunner: Symbol.for('interlock.ThreadRunner'),
  InteractionResponses: Symbol.for('interlock.InteractionResponses'),
} as const;
