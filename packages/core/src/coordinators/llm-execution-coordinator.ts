import { inject, injectable } from 'inversify';
import type { Message, NodeOfType } from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import { renderTemplate, stringify } from '../expressions/expressions.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../engine/node-executor.js';
import type { ModelProvider } from '../llm/model-provider.js';

/**
 * Runs LLM nodes: renders the prompt into the conversation, calls the model with the whole
 * conversation (so messages added by ADD_MESSAGE are seen), and appends the answer.
 * Tool calls inside the loop arrive with the tool-approval work.
 */
@injectable()
export class LLMExecutionCoordinator implements INodeExecutor<'LLM'> {
  readonly type = 'LLM' as const;

  constructor(@inject(TYPES.Models) private readonly models: Readonly<Record<string, ModelProvider>>) {}

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
    const variables = context.scopes.all();
    if (config.prompt !== undefined) {
      context.thread.conversation.push({ role: 'user', content: stringify(renderTemplate(config.prompt, variables)), nodeId: node.id });
    }
    const messages: Message[] = [...context.thread.conversation];
    if (config.systemPrompt !== undefined) {
      messages.unshift({ role: 'system', content: stringify(renderTemplate(config.systemPrompt, variables)) });
    }

    context.emit({ type: 'LLM_CALL_STARTED', nodeId: node.id, model: config.model, round: 1 });
    let response;
    try {
      response = await model.complete({
        threadId: context.thread.threadId,
        nodeId: node.id,
        messages,
        signal: context.signal,
        onTextDelta: (delta) => context.emit({ type: 'LLM_TEXT_DELTA', nodeId: node.id, delta }),
      });
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
    if (response.toolCalls?.length) {
      throw new InterlockError(
        'NODE_NOT_SUPPORTED',
        `model "${config.model}" asked for tool calls in node "${node.id}"; tool calls inside LLM nodes are not supported yet`,
      );
    }
    context.emit({
      type: 'LLM_CALL_COMPLETED',
      nodeId: node.id,
      model: config.model,
      round: 1,
      text: response.text,
      toolCallCount: 0,
    });
    context.thread.conversation.push({ role: 'assistant', content: response.text, nodeId: node.id });
    if (config.outputVariable !== undefined) context.scopes.set(config.outputVariable, response.text);
    return { kind: 'next' };
  }
}
