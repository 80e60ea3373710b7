import { injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { InterlockError } from '../../errors/interlock-error.js';
import { evaluateExpression } from '../../expressions/expressions.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../node-executor.js';
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
    const loops = context.frame.loops;
    let loop = loops.at(-1);
    if (loop?.nodeId === node.id) {
      loop.index += 1;
    } else {
      const items = evaluateExpression(config.items, context.scopes.all());
      if (!Array.isArray(items)) {
        throw new InterlockError(
          'EXPRESSION_FAILED',
          `LOOP "${node.id}": items \`${config.items}\` must yield a list, got ${typeof items}`,
        );
      }
      loop = { nodeId: node.id, items, index: 0, variables: {} };
      loops.push(loop);
    }
    if (loop.index >= loop.items.length) {
      loops.pop();
      return { kind: 'next' };
    }
    if (loop.index >= config.maxIterations) {
      throw new InterlockError(
        'MAX_ITERATIONS_EXCEEDED',
        `LOOP "${node.id}" reached maxIterations (${config.maxIterations}): raise it in the node's config or shorten the list`,
      );
    }
    loop.variables = {
      ...defaultsOf(context.workflow, 'loop'),
      [config.itemVariable]: loop.items[loop.index],
      [config.indexVariable]: loop.index,
    };
    return { kind: 'next', next: config.body };
  }
}
