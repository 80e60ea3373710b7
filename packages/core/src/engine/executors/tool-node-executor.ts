import { inject, injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { TYPES } from '../../di/tokens.js';
import { InterlockError } from '../../errors/interlock-error.js';
import { renderDeep, renderTemplate } from '../../expressions/expressions.js';
import type { ToolCallPipeline, TurnLens } from '../../tools/tool-call-pipeline.js';
import { withNodeState } from '../transitions.js';
import { newTurnCall, type TurnState } from '../../tools/turn-state.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../node-executor.js';

/**
 * Calls one tool directly from a workflow. The call goes through the same approval
 * pipeline as a model's call; a call that does not succeed fails the node. A node that
 * decides only (`decideOnly`) is done once the decision is: a call refused by a rule or a
 * person, or left unanswered, ends it with `null` (the audit says who refused it and why),
 * so an approval service's thread completes whatever was decided.
 */
@injectable()
export class ToolNodeExecutor implements INodeExecutor<'TOOL'> {
  readonly type = 'TOOL' as const;

  constructor(@inject(TYPES.ToolCallPipeline) private readonly pipeline: ToolCallPipeline) {}

  async execute(node: NodeOfType<'TOOL'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    if (!context.nodeState<TurnState>()) {
      const variables = context.scopes.all();
      const turn: TurnState = {
        calls: [
          newTurnCall({
            id: `${node.id}-${context.thread.steps}`,
            name: toolNameOf(node, variables),
            arguments: argumentsOf(node, variables),
          }),
        ],
      };
      await context.apply({ next: withNodeState(context.thread, turn) });
    }
    const progress = await this.pipeline.run(
      context,
      {
        nodeId: node.id,
        allowedTools: (context.nodeState<TurnState>() as TurnState).calls.map((call) => call.name),
        decideOnly: node.config.decideOnly,
      },
      TURN_OF_TOOL_NODE,
    );
    if (progress === 'suspend') return { kind: 'suspend', interactionIds: [...context.thread.pendingInteractionIds] };
    if (progress === 'cancelled') {
      return {
        kind: 'cancelled',
        reason: typeof context.signal.reason === 'string' ? context.signal.reason : 'the thread was cancelled',
      };
    }
    const [call] = (context.nodeState<TurnState>() as TurnState).calls;
    const refused = call?.phase === 'done' && (call.status === 'EXECUTION_REJECTED' || call.status === 'TIMEOUT');
    if (node.config.decideOnly && refused) return nodeOutput(node, null);
    if (call?.phase !== 'done' || call.status !== 'SUCCESS') {
      const done = call?.phase === 'done' ? call : undefined;
      throw new InterlockError(
        'TOOL_CALL_FAILED',
        `TOOL node "${node.id}": ${done?.content ?? 'the call did not run'}`,
        {
          details: { status: done?.status },
        },
      );
    }
    return nodeOutput(node, call.output ?? null);
  }
}

/** Goes on to the next node with `output` in the node's output variable, if it names one. */
function nodeOutput(node: NodeOfType<'TOOL'>, output: unknown): NodeOutcome {
  const { outputVariable } = node.config;
  return {
    kind: 'next',
    complete: (scopes) => {
      if (outputVariable !== undefined) scopes.set(outputVariable, output, undefined, { blind: true });
    },
  };
}

/** A TOOL node's state is its turn of one call. */
const TURN_OF_TOOL_NODE: TurnLens = {
  get: (thread) => thread.activeNode?.state as TurnState,
  set: (thread, turn) => withNodeState(thread, turn),
};

function toolNameOf(node: NodeOfType<'TOOL'>, variables: Readonly<Record<string, unknown>>): string {
  if (!node.config.tool.includes('{{')) return node.config.tool;
  const name = renderTemplate(node.config.tool, variables);
  if (typeof name !== 'string' || name === '') {
    throw new InterlockError(
      'TOOL_NOT_FOUND',
      `TOOL node "${node.id}": \`${node.config.tool}\` gave ${JSON.stringify(name)}, not a tool name`,
    );
  }
  return name;
}

function argumentsOf(node: NodeOfType<'TOOL'>, variables: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const from = node.config.argumentsFrom;
  if (from === undefined) return renderDeep(node.config.arguments, variables) as Record<string, unknown>;
  const value = variables[from];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InterlockError(
      'TOOL_ARGUMENTS_INVALID',
      `TOOL node "${node.id}": variable "${from}" holds ${Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value}, not an arguments object`,
    );
  }
  return value as Record<string, unknown>;
}
