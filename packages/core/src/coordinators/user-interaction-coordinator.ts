import { inject, injectable } from 'inversify';
import type { NodeOfType } from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import { renderTemplate, stringify } from '../expressions/expressions.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../engine/node-executor.js';
import { isoTime, type Clock } from '../engine/clock.js';
import type { EmittedEvent } from '../engine/node-executor.js';
import { nodeStateOf, withStateOf } from '../engine/node-states.js';
import { appendMessages } from '../engine/transitions.js';
import type { InteractionGateway } from '../interaction/interaction-gateway.js';
import type { InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';

export { NO_RESPONDER_CHANNEL } from '../interaction/interaction-gateway.js';

const FAILURE_CODES = {
  timeout: 'INTERACTION_TIMEOUT',
  cancelled: 'INTERACTION_CANCELLED',
  handler_error: 'INTERACTION_HANDLER_FAILED',
  invalid_response: 'INTERACTION_INVALID_RESPONSE',
  no_handler: 'INTERACTION_NO_HANDLER',
} as const;

/**
 * Runs USER_INTERACTION nodes (F4–F10): node config → request → REQUESTED → a handler or a
 * durable wait (InteractionGateway) → RESPONDED → apply the answer → PROCESSED; or FAILED
 * with its reason. A USER_INTERACTION node never reaches the model (F9).
 */
@injectable()
export class UserInteractionCoordinator implements INodeExecutor<'USER_INTERACTION'> {
  readonly type = 'USER_INTERACTION' as const;

  constructor(
    @inject(TYPES.InteractionGateway) private readonly gateway: InteractionGateway,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  async execute(node: NodeOfType<'USER_INTERACTION'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    const { config } = node;
    const state = nodeStateOf(context.thread, 'USER_INTERACTION');
    let interaction: InteractionRecord;
    if (state) {
      interaction = this.gateway.load(state.interactionId, context);
    } else {
      const [opened] = await this.gateway.open(
        [
          {
            nodeId: node.id,
            operationType: config.operationType,
            prompt: stringify(renderTemplate(config.prompt, context.scopes.all())),
            ...(config.input === undefined ? {} : { input: config.input }),
            timeout: config.timeout ?? context.workflow.config.timeout,
            metadata: config.metadata,
          },
        ],
        context,
        (thread, [record]) =>
          record ? withStateOf(thread, 'USER_INTERACTION', { interactionId: record.interactionId }) : thread,
      );
      if (!opened) throw new InterlockError('INTERNAL', 'the interaction was not opened');
      interaction = opened;
    }
    const { settled, suspendedIds } = await this.gateway.settle([interaction], context);
    const [answered] = settled;
    if (suspendedIds.length > 0 || !answered) return { kind: 'suspend', interactionIds: [interaction.interactionId] };
    if (answered.status === 'failed') return this.failed(answered, context);
    return this.process(node, answered, context);
  }

  private async failed(interaction: InteractionRecord, context: NodeExecutionContext): Promise<NodeOutcome> {
    const reason = interaction.failureReason ?? 'handler_error';
    const message = interaction.failureMessage ?? reason;
    await context.apply({
      next: this.gateway.release(context.thread, interaction.interactionId),
      effects: {
        events: [
          {
            type: 'USER_INTERACTION_FAILED',
            interactionId: interaction.interactionId,
            nodeId: interaction.nodeId,
            operationType: interaction.request.operationType,
            reason,
            message,
          },
        ],
      },
    });
    if (reason === 'cancelled') return { kind: 'cancelled', reason: message };
    throw new InterlockError(
      FAILURE_CODES[reason],
      `interaction at node "${interaction.nodeId}" failed (${reason}): ${message}`,
      {
        details: { interactionId: interaction.interactionId, reason },
      },
    );
  }

  /**
   * The answer applied is the node's completion: the variables it writes (computed again
   * should another thread change a global they write meanwhile) or the message it adds, the
   * answer consumed in the same commit, then RESPONDED and PROCESSED.
   */
  private process(
    node: NodeOfType<'USER_INTERACTION'>,
    interaction: InteractionRecord,
    context: NodeExecutionContext,
  ): NodeOutcome {
    const response = interaction.response;
    if (!response)
      throw new InterlockError('INTERNAL', `interaction ${interaction.interactionId} is responded but has no response`);
    const base = {
      interactionId: interaction.interactionId,
      nodeId: node.id,
      operationType: node.config.operationType,
    };
    const responded: EmittedEvent = {
      type: 'USER_INTERACTION_RESPONDED',
      ...base,
      input: response.input,
      ...(response.responder === undefined ? {} : { responder: response.responder }),
    };
    const consume = {
      kind: 'consume' as const,
      interactionId: interaction.interactionId,
      at: isoTime(this.clock.now()),
    };
    const release = (thread: ThreadRecord) => this.gateway.release(thread, interaction.interactionId);
    const { config } = node;
    return {
      kind: 'next',
      failpoint: 'interaction:applied',
      complete: (scopes) => {
        const variables = { ...scopes.all(), input: response.input };
        try {
          if (config.operationType === 'UPDATE_VARIABLES') {
            const updated: Record<string, unknown> = {};
            for (const assignment of config.variables) {
              const value = renderTemplate(assignment.expression, { ...variables, ...updated });
              scopes.set(assignment.variableName, value, assignment.scope);
              updated[assignment.variableName] = value;
            }
            return {
              update: release,
              effects: {
                interactions: [consume],
                events: [responded, { type: 'USER_INTERACTION_PROCESSED', ...base, updatedVariables: updated }],
                durable: 'soon',
              },
            };
          }
          const content = stringify(renderTemplate(config.message.contentTemplate, variables));
          return {
            update: (thread) =>
              appendMessages(release(thread), { role: config.message.role, content, nodeId: node.id }),
            effects: {
              interactions: [consume],
              events: [responded, { type: 'USER_INTERACTION_PROCESSED', ...base, appendedMessage: content }],
              durable: 'soon',
            },
          };
        } catch (error) {
          const failure = toInterlockError(error);
          context.emit(responded);
          context.emit({
            type: 'USER_INTERACTION_FAILED',
            ...base,
            reason: 'invalid_response',
            message: failure.message,
          });
          throw new InterlockError(
            'INTERACTION_INVALID_RESPONSE',
            `the answer to node "${node.id}" could not be applied: ${failure.message}`,
            { cause: failure },
          );
        }
      },
    };
  }
}
