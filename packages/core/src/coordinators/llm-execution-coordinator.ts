import { inject, injectable } from 'inversify';
import type { Message, NodeOfType } from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import { renderTemplate, stringify } from '../expressions/expressions.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../engine/node-executor.js';
import type { ModelProvider, ModelResponse } from '../llm/model-provider.js';
import { keptStateOf, nodeStateOf, withStateOf, type LlmNodeState, type LlmTurn } from '../engine/node-states.js';
import { appendMessages } from '../engine/transitions.js';
import type { ToolCallPipeline, TurnLens } from '../tools/tool-call-pipeline.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { argumentsOf, newTurnCall } from '../tools/turn-state.js';

/**
 * Runs LLM nodes: the tool-call loop of F15. The model sees the whole conversation (so a
 * message added by ADD_MESSAGE reaches it) and the node's tools as JSON Schema; each turn's
 * tool calls go through the ToolCallPipeline; results go back to the model until it
 * answers with text, or `maxRounds` / `maxToolCalls` is reached.
 */
@injectable()
export class LLMExecutionCoordinator implements INodeExecutor<'LLM'> {
  readonly type = 'LLM' as const;

  constructor(
    @inject(TYPES.Models) private readonly models: Readonly<Record<string, ModelProvider>>,
    @inject(TYPES.ToolRegistry) private readonly tools: ToolRegistry,
    @inject(TYPES.ToolCallPipeline) private readonly pipeline: ToolCallPipeline,
  ) {}

  async execute(node: NodeOfType<'LLM'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    const { config } = node;
    const model = this.models[config.model];
    if (!model) {
      const known = Object.keys(this.models).join(', ') || 'none';
      throw new InterlockError(
        'MODEL_NOT_FOUND',
        `LLM node "${node.id}" uses model "${config.model}", but createInterlock({ models }) has ${known}`,
      );
    }
    if (nodeStateOf(context.thread, 'LLM') === undefined) {
      const prompt: Message[] =
        config.prompt === undefined
          ? []
          : [
              {
                role: 'user',
                content: stringify(renderTemplate(config.prompt, context.scopes.all())),
                nodeId: node.id,
              },
            ];
      const initial: LlmNodeState = { round: 0, toolCallCount: 0, turn: null };
      await context.apply({ next: withStateOf(appendMessages(context.thread, ...prompt), 'LLM', initial) });
    }
    for (;;) {
      const state = keptStateOf(context.thread, 'LLM');
      if (!state.turn) {
        if (state.round >= config.maxRounds) {
          throw new InterlockError(
            'LLM_MAX_ROUNDS_EXCEEDED',
            `LLM node "${node.id}" reached maxRounds (${config.maxRounds}) without a final answer: raise maxRounds or give the model fewer steps`,
          );
        }
        if (context.signal.aborted)
          throw new InterlockError('INTERNAL', 'the run was stopped before the next model call');
        const round = state.round + 1;
        const response = await this.callModel(node, model, round, context);
        const calls = response.toolCalls ?? [];
        if (calls.length === 0) {
          const answer: Message = { role: 'assistant', content: response.text, nodeId: node.id };
          return {
            kind: 'next',
            complete: (scopes) => {
              if (config.outputVariable !== undefined)
                scopes.set(config.outputVariable, response.text, undefined, { blind: true });
              return { update: (thread) => appendMessages(thread, answer) };
            },
          };
        }
        if (state.toolCallCount + calls.length > config.maxToolCalls) {
          throw new InterlockError(
            'LLM_MAX_TOOL_CALLS_EXCEEDED',
            `LLM node "${node.id}" would exceed maxToolCalls (${config.maxToolCalls}) with ${calls.length} more calls: raise maxToolCalls`,
          );
        }
        // The model's proposal is part of the thread from now on; it is stored with the next
        // durability point (before anyone is asked, before a tool runs): resume never re-asks the model then.
        await context.apply({
          next: withStateOf(context.thread, 'LLM', {
            round,
            toolCallCount: state.toolCallCount + calls.length,
            turn: { text: response.text, calls: calls.map(newTurnCall) },
          } satisfies LlmNodeState),
        });
      }
      const progress = await this.pipeline.run(
        context,
        { nodeId: node.id, allowedTools: config.tools },
        TURN_OF_LLM_NODE,
      );
      if (progress === 'suspend') return { kind: 'suspend', interactionIds: [...context.thread.pendingInteractionIds] };
      const current = keptStateOf(context.thread, 'LLM');
      const turn = current.turn as LlmTurn;
      await context.apply({
        next: appendMessages(
          withStateOf(context.thread, 'LLM', { ...current, turn: null }),
          ...this.closeTurn(node.id, turn),
        ),
      });
      if (progress === 'cancelled') return { kind: 'cancelled', reason: cancelReason(context.signal) };
    }
  }

  private async callModel(
    node: NodeOfType<'LLM'>,
    model: ModelProvider,
    round: number,
    context: NodeExecutionContext,
  ): Promise<ModelResponse> {
    const { config } = node;
    const messages: Message[] = [...context.thread.conversation];
    if (config.systemPrompt !== undefined) {
      messages.unshift({
        role: 'system',
        content: stringify(renderTemplate(config.systemPrompt, context.scopes.all())),
      });
    }
    context.emit({ type: 'LLM_CALL_STARTED', nodeId: node.id, model: config.model, round });
    try {
      const response = await model.complete({
        threadId: context.thread.threadId,
        nodeId: node.id,
        messages,
        tools: this.tools.specs(config.tools),
        signal: context.signal,
        onTextDelta: (delta) => context.emit({ type: 'LLM_TEXT_DELTA', nodeId: node.id, delta }),
      });
      context.emit({
        type: 'LLM_CALL_COMPLETED',
        nodeId: node.id,
        model: config.model,
        round,
        text: response.text,
        toolCallCount: response.toolCalls?.length ?? 0,
      });
      return response;
    } catch (error) {
      const failure = toInterlockError(error, 'MODEL_FAILED');
      context.emit({
        type: 'LLM_CALL_FAILED',
        nodeId: node.id,
        model: config.model,
        error: { code: failure.code, message: failure.message, nodeId: node.id },
      });
      throw failure;
    }
  }

  /**
   * The messages of a finished turn, by the rules of ARCHITECTURE.md: the assistant message
   * with the arguments that really ran, exactly one tool message per call in order, then the
   * approvers' instructions as one user message.
   */
  private closeTurn(nodeId: string, turn: LlmTurn): Message[] {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: turn.text,
        toolCalls: turn.calls.map((call) => ({ id: call.id, name: call.name, arguments: argumentsOf(call) })),
        nodeId,
      },
    ];
    for (const call of turn.calls) {
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        content: call.phase === 'done' ? call.content : '[ERROR] the call did not finish',
        nodeId,
      });
    }
    const instructions = turn.calls
      .filter((call) => call.userInstruction !== undefined && this.tools.find(call.name)?.category !== 'ask')
      .map((call) => call.userInstruction);
    if (instructions.length > 0) messages.push({ role: 'user', content: instructions.join('\n'), nodeId });
    return messages;
  }
}

/** Where an LLM node keeps the turn being decided or run. */
const TURN_OF_LLM_NODE: TurnLens = {
  get: (thread) => {
    const turn = nodeStateOf(thread, 'LLM')?.turn;
    if (!turn) throw new InterlockError('INTERNAL', `thread ${thread.threadId} has no turn under way`);
    return turn;
  },
  set: (thread, turn) => {
    const state = keptStateOf(thread, 'LLM');
    if (state.turn === null) throw new InterlockError('INTERNAL', `thread ${thread.threadId} has no turn under way`);
    const next: LlmTurn = { ...state.turn, ...turn };
    return withStateOf(thread, 'LLM', { ...state, turn: next });
  },
};

function cancelReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'the thread was cancelled';
}
