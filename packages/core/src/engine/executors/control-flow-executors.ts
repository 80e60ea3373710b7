import { injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { evaluateCondition, renderTemplate } from '../../expressions/expressions.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../node-executor.js';

@injectable()
export class StartNodeExecutor implements INodeExecutor<'START'> {
  readonly type = 'START' as const;
  async execute(): Promise<NodeOutcome> {
    return { kind: 'next' };
  }
}

@injectable()
export class EndNodeExecutor implements INodeExecutor<'END'> {
  readonly type = 'END' as const;
  async execute(node: NodeOfType<'END'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    const output = node.config.output === undefined ? null : renderTemplate(node.config.output, context.scopes.all());
    return { kind: 'end', output };
  }
}

/** Takes the first branch whose condition is true, else the default (F6). */
@injectable()
export class RouteNodeExecutor implements INodeExecutor<'ROUTE'> {
  readonly type = 'ROUTE' as const;
  async execute(node: NodeOfType<'ROUTE'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    const variables = context.scopes.all();
    const branch = node.config.branches.find((candidate) => evaluateCondition(candidate.condition, variables));
    return { kind: 'next', next: branch?.to ?? node.config.default };
  }
}

/**
 * Assigns variables in order; each assignment sees the ones before it. The assignments are
 * the node's completion, so an update of a global another thread changed meanwhile is
 * computed again from its new value (F3).
 */
@injectable()
export class VariableNodeExecutor implements INodeExecutor<'VARIABLE'> {
  readonly type = 'VARIABLE' as const;
  async execute(node: NodeOfType<'VARIABLE'>): Promise<NodeOutcome> {
    return {
      kind: 'next',
      complete: (scopes) => {
        for (const assignment of node.config.assignments)
          scopes.set(assignment.variableName, renderTemplate(assignment.expression, scopes.all()), assignment.scope);
      },
    };
  }
}
