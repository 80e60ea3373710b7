import { injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { InterlockError } from '../../errors/interlock-error.js';
import { evaluateExpression } from '../../expressions/expressions.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../node-executor.js';
import { withLoop } from '../transitions.js';
import { defaultsOf } from '../variable-scopes.js';

/**
 * Iterates over a list. The cursor arrives here first from outside (the list is evaluated
 * once), then from the end of the body after each iteration. Each iteration gets fresh
 * loop-scope variables: `itemVariable`, `indexVariable` and the declared loop variables.
 */
@injectable()
export class LoopNodeExecutor implements INodeExecutor<'LOOP'> {
  readonly type = 'LOOP' as const;

  async execute(node: NodeOfType<'LOOP'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    const { config } = node;
    const current = context.frame.loops.at(-1);
    const entering = current?.nodeId !== node.id;
    let items: unknown[];
    let index: number;
    if (entering) {
      const evaluated = evaluateExpression(config.items, context.scopes.all());
      if (!Array.isArray(evaluated)) {
        throw new InterlockError(
          'EXPRESSION_FAILED',
          `LOOP "${node.id}": items \`${config.items}\` must yield a list, got ${typeof evaluated}`,
        );
      }
      items = evaluated;
      index = 0;
    } else {
      items = current.items;
      index = current.index + 1;
    }
    if (index >= items.length) {
      if (!entering) await context.apply({ next: withLoop(context.thread, null, true) });
      return { kind: 'next' };
    }
    if (index >= config.maxIterations) {
      throw new InterlockError(
        'MAX_ITERATIONS_EXCEEDED',
        `LOOP "${node.id}" reached maxIterations (${config.maxIterations}): raise it in the node's config or shorten the list`,
      );
    }
    const variables = {
      ...defaultsOf(context.workflow, 'loop'),
      [config.itemVariable]: items[index],
      [config.indexVariable]: index,
    };
    await context.apply({ next: withLoop(context.thread, { nodeId: node.id, items, index, variables }, !entering) });
    return { kind: 'next', next: config.body };
  }
}
