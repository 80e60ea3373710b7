import { inject, injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { TYPES } from '../../di/tokens.js';
import { InterlockError } from '../../errors/interlock-error.js';
import { renderDeep } from '../../expressions/expressions.js';
import type { ToolCallPipeline } from '../../tools/tool-call-pipeline.js';
import { newTurnCall, type TurnState } from '../../tools/turn-state.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../node-executor.js';

/**
 * Calls one tool directly from a workflow. The call goes through the same approval
 * pipeline as a model's call; a call that does not succeed fails the node.
 */
@injectable()
export class ToolNodeExecutor implements INodeExecutor<'TOOL'> {
  readonly type = 'TOOL' as const;

  constructor(@inject(TYPES.ToolCallPipeline) private readonly pipeline: ToolCallPipeline) {}

  async execute(node: NodeOfType<'TOOL'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    let turn = context.nodeState<TurnState>();
    if (!turn) {
      const variables = context.scopes.all();
      const args = renderDeep(node.config.arguments, variables) as Record<string, unknown>;
      turn = { calls: [newTurnCall({ id: `${node.id}-${context.thread.steps}`, name: node.config.tool, arguments: args })] };
      context.setNodeState(turn);
      await context.checkpoint();
    }
    const progress = await this.pipeline.run(turn, context, { nodeId: node.id, allowedTools: [node.config.tool] });
    if (progress === 'suspend') return { kind: 'suspend', interactionIds: [...context.thread.pendingInteractionIds] };
    if (progress === 'cancelled') {
      return { kind: 'cancelled', reason: typeof context.signal.reason === 'string' ? context.signal.reason : 'the thread was cancelled' };
    }
    const [call] = turn.calls;
    if (call?.status !== 'SUCCESS') {
      throw new InterlockError('TOOL_CALL_FAILED', `TOOL node "${node.id}": ${call?.content ?? 'the call did not run'}`, {
        details: { status: call?.status },
      });
    }
    if (node.config.outputVariable !== undefined) context.scopes.set(node.config.outputVariable, call.output ?? null);
    return { kind: 'next' };
  }
}
