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

/** Assigns variables in order; each assignment sees the ones before it. */
@injectable()
export class VariableNodeExecutor implements INodeExecutor<'VARIABLE'> {
  readonly type = 'VARIABLE' as const;
  async execute(node: NodeOfType<'VARIABLE'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    for (const assignment of node.config.assignments) {
      const value = renderTemplate(assignment.expression, context.scopes.all());
      context.scopes.set(assignment.variableName, value, assignment.scope);
    }
    return { kind: 'next' };
  }
}
