import { ContainerModule } from 'inversify';
import { LLMExecutionCoordinator } from '../coordinators/llm-execution-coordinator.js';
import { NodeExecutionCoordinator } from '../coordinators/node-execution-coordinator.js';
import { UserInteractionCoordinator } from '../coordinators/user-interaction-coordinator.js';
import {
  EndNodeExecutor,
  RouteNodeExecutor,
  StartNodeExecutor,
  VariableNodeExecutor,
} from '../engine/executors/control-flow-executors.js';
import { LoopNodeExecutor } from '../engine/executors/loop-node-executor.js';
import { SubgraphNodeExecutor } from '../engine/executors/subgraph-node-executor.js';
import { ThreadRunner } from '../engine/thread-runner.js';
import { EventBus } from '../events/event-bus.js';
import { InteractionResponses } from '../interaction/interaction-responses.js';
import { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { TYPES } from './tokens.js';

/**
 * The engine's services. Configuration (store, models, handlers, clock) is bound by
 * `createInterlock`; node executors are multi-injected into the NodeExecutionCoordinator.
 */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TYPES.EventBus).toConstantValue(new EventBus());
  bind(TYPES.WorkflowRegistry).toConstantValue(new WorkflowRegistry());
  bind(TYPES.InteractionResponses).toConstantValue(new InteractionResponses());

  bind(TYPES.UserInteractionCoordinator).to(UserInteractionCoordinator).inSingletonScope();
  bind(TYPES.LLMExecutionCoordinator).to(LLMExecutionCoordinator).inSingletonScope();
  bind(TYPES.NodeExecutionCoordinator).to(NodeExecutionCoordinator).inSingletonScope();
  bind(TYPES.ThreadRunner).to(ThreadRunner).inSingletonScope();

  bind(TYPES.NodeExecutor).to(StartNodeExecutor).inSingletonScope();
  bind(TYPES.NodeExecutor).to(EndNodeExecutor).inSingletonScope();
  bind(TYPES.NodeExecutor).to(RouteNodeExecutor).inSingletonScope();
  bind(TYPES.NodeExecutor).to(VariableNodeExecutor).inSingletonScope();
  bind(TYPES.NodeExecutor).to(LoopNodeExecutor).inSingletonScope();
  bind(TYPES.NodeExecutor).to(SubgraphNodeExecutor).inSingletonScope();
  bind(TYPES.NodeExecutor).toService(TYPES.UserInteractionCoordinator);
  bind(TYPES.NodeExecutor).toService(TYPES.LLMExecutionCoordinator);
});
