import { inject, injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { TYPES } from '../../di/tokens.js';
import { renderTemplate } from '../../expressions/expressions.js';
import { definitionHash } from '../../workflow/definition-hash.js';
import type { WorkflowRegistry } from '../../workflow/workflow-registry.js';
import { startNodeId } from '../graph.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../node-executor.js';
import { pushFrame } from '../transitions.js';
import { defaultsOf } from '../variable-scopes.js';

/**
 * Starts another workflow as a child frame with its own subgraph scope. Inputs are
 * templates over the parent's variables, written into the child's declared variables;
 * outputs are mapped back when the child reaches END (see NodeExecutionCoordinator). The
 * child's global variables read as their defaults until first written.
 */
@injectable()
export class SubgraphNodeExecutor implements INodeExecutor<'SUBGRAPH'> {
  readonly type = 'SUBGRAPH' as const;

  constructor(@inject(TYPES.WorkflowRegistry) private readonly workflows: WorkflowRegistry) {}

  async execute(node: NodeOfType<'SUBGRAPH'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    const child = this.workflows.get(node.config.workflow);
    const parentVariables = context.scopes.all();
    const variables = defaultsOf(child, 'subgraph');
    const threadScoped = new Set(child.variables.filter((v) => v.scope === 'thread').map((v) => v.name));
    const threadVariables: Record<string, unknown> = { ...context.thread.variables };
    for (const declaration of child.variables.filter((v) => v.scope === 'thread')) {
      if (!(declaration.name in threadVariables))
        threadVariables[declaration.name] = structuredClone(declaration.default ?? null);
    }
    for (const [name, template] of Object.entries(node.config.input)) {
      const value = renderTemplate(template, parentVariables);
      if (threadScoped.has(name)) threadVariables[name] = value;
      else variables[name] = value;
    }
    const entered = pushFrame(
      { ...context.thread, variables: threadVariables },
      {
        workflowId: child.id,
        workflowVersion: child.version,
        definitionHash: definitionHash(child),
        cursor: startNodeId(child),
        variables,
        loops: [],
        parentNodeId: node.id,
      },
    );
    await context.apply({ next: { ...entered, activeNode: null } });
    return { kind: 'enter' };
  }
}
