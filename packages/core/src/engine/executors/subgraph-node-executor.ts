import { definitionHash } from '../../workflow/definition-hash.js';
import { inject, injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { TYPES } from '../../di/tokens.js';
import { renderTemplate } from '../../expressions/expressions.js';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import type { WorkflowRegistry } from '../../workflow/workflow-registry.js';
import { startNodeId } from '../graph.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../node-executor.js';
import { defaultsOf } from '../variable-scopes.js';

/**
 * Starts another workflow as a child frame with its own subgraph scope. Inputs are
 * templates over the parent's variables, written into the child's declared variables;
 * outputs are mapped back when the child reaches END (see NodeExecutionCoordinator).
 */
@injectable()
export class SubgraphNodeExecutor implements INodeExecutor<'SUBGRAPH'> {
  readonly type = 'SUBGRAPH' as const;

  constructor(
    @inject(TYPES.WorkflowRegistry) private readonly workflows: WorkflowRegistry,
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
  ) {}

  async execute(node: NodeOfType<'SUBGRAPH'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    const child = this.workflows.get(node.config.workflow);
    await this.store.setGlobalVariables(child.id, defaultsOf(child, 'global'), { onlyIfAbsent: true });
    const parentVariables = context.scopes.all();
    const variables = defaultsOf(child, 'subgraph');
    const threadScoped = new Set(child.variables.filter((v) => v.scope === 'thread').map((v) => v.name));
    for (const declaration of child.variables.filter((v) => v.scope === 'thread')) {
      if (!(declaration.name in context.thread.variables)) {
        context.thread.variables[declaration.name] = structuredClone(declaration.default ?? null);
      }
    }
    for (const [name, template] of Object.entries(node.config.input)) {
      const value = renderTemplate(template, parentVariables);
      if (threadScoped.has(name)) context.thread.variables[name] = value;
      else variables[name] = value;
    }
    context.thread.frames.push({
      workflowId: child.id,
      workflowVersion: child.version,
      definitionHash: definitionHash(child),
      cursor: startNodeId(child),
      variables,
      loops: [],
      parentNodeId: node.id,
    });
    return { kind: 'enter' };
  }
}
