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
import { ToolNodeExecutor } from '../engine/executors/tool-node-executor.js';
import { ThreadRunner } from '../engine/thread-runner.js';
import { EventBus } from '../events/event-bus.js';
import { InteractionGateway } from '../interaction/interaction-gateway.js';
import { InteractionResponses } from '../interaction/interaction-responses.js';
import { ResponseInterpreter } from '../interaction/response-interpreter.js';
import { ApprovalPolicy } from '../policy/approval-policy.js';
import { MessageBus } from '../policy/message-bus.js';
import { ToolCallPipeline } from '../tools/tool-call-pipeline.js';
import { TYPES } from './tokens.js';

/**
 * The engine's services. Configuration (store, models, tools, handlers, approval options,
 * shell rules, clock) is bound by `createInterlock`; node executors are multi-injected into
 * the NodeExecutionCoordinator.
 */
export const coreModule = new ContainerModule(({ bind }) => {
  bind(TYPES.EventBus).toConstantValue(new EventBus());
  bind(TYPES.InteractionResponses).toConstantValue(new InteractionResponses());
  bind(TYPES.MessageBus).toConstantValue(new MessageBus());

  bind(TYPES.ApprovalPolicy).to(ApprovalPolicy).inSingletonScope();
  bind(TYPES.ResponseInterpreter).to(ResponseInterpreter).inSingletonScope();
  bind(TYPES.InteractionGateway).to(InteractionGateway).inSingletonScope();
  bind(TYPES.ToolCallPipeline).to(ToolCallPipeline).inSingletonScope();
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
  bind(TYPES.NodeExecutor).to(ToolNodeExecutor).inSingletonScope();
  bind(TYPES.NodeExecutor).toService(TYPES.UserInteractionCoordinator);
  bind(TYPES.NodeExecutor).toService(TYPES.LLMExecutionCoordinator);
});
