import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { catchError, firstValueFrom, from, fromEvent, map, NEVER, of, race, type Observable } from 'rxjs';
import {
  UserInteractionHandlerResult,
  type InteractionFailureReason,
  type IUserInteractionHandler,
  type NodeOfType,
  type UserInteractionContext,
  type UserInteractionRequest,
} from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import { renderTemplate, stringify } from '../expressions/expressions.js';
import { timerUntil, type Clock } from '../engine/clock.js';
import { SHUTDOWN } from '../engine/shutdown.js';
import type { INodeExecutor, NodeExecutionContext, NodeOutcome } from '../engine/node-executor.js';
import type { EventBus } from '../events/event-bus.js';
import { forThread } from '../events/event-operators.js';
import { interpretInput } from '../interaction/interpret-input.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import type { ICheckpointStore, InteractionRecord } from '../persistence/checkpoint-store.js';

/** The channel that means "nobody can answer": interactions fail with `no_handler`. */
export const NO_RESPONDER_CHANNEL = 'none';

const FAILURE_CODES = {
  timeout: 'INTERACTION_TIMEOUT',
  cancelled: 'INTERACTION_CANCELLED',
  handler_error: 'INTERACTION_HANDLER_FAILED',
  invalid_response: 'INTERACTION_INVALID_RESPONSE',
  no_handler: 'INTERACTION_NO_HANDLER',
} as const;

type Settled =
  | { kind: 'handler'; result: UserInteractionHandlerResult }
  | { kind: 'handler_error'; error: unknown }
  | { kind: 'answered_elsewhere' }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

/**
 * Runs USER_INTERACTION nodes (F4–F10): node config → request → REQUESTED → a handler or a
 * durable wait → RESPONDED → apply the answer → PROCESSED; or FAILED with its reason.
 * The thread is checkpointed with the pending interaction before it is requested, and
 * the code after an answer is the same whether it came from a handler in this process or
 * from `interlock.respond()` in any process.
 */
@injectable()
export class UserInteractionCoordinator implements INodeExecutor<'USER_INTERACTION'> {
  readonly type = 'USER_INTERACTION' as const;

  constructor(
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.EventBus) private readonly bus: EventBus,
    @inject(TYPES.Handlers) private readonly handlers: Map<string, IUserInteractionHandler>,
    @inject(TYPES.InteractionResponses) private readonly responses: InteractionResponses,
    @inject(TYPES.Clock) private readonly clock: Clock,
  ) {}

  async execute(node: NodeOfType<'USER_INTERACTION'>, context: NodeExecutionContext): Promise<NodeOutcome> {
    let interaction = await this.pendingInteractionOf(node.id, context);
    interaction ??= await this.request(node, context);
    if (interaction.status === 'pending') {
      const next = await this.awaitAnswer(interaction, context);
      if (next === 'suspend') return { kind: 'suspend', interactionIds: [interaction.interactionId] };
      interaction = next;
    }
    if (interaction.status === 'failed') return this.failed(interaction, context);
    return this.process(node, interaction, context);
  }

  /** The interaction this thread already waits on at this node (after a resume), if any. */
  private async pendingInteractionOf(nodeId: string, context: NodeExecutionContext): Promise<InteractionRecord | undefined> {
    const id = context.thread.pendingInteractionId;
    if (id === null) return undefined;
    const interaction = await this.store.getInteraction(id);
    return interaction?.nodeId === nodeId ? interaction : undefined;
  }

  private async request(node: NodeOfType<'USER_INTERACTION'>, context: NodeExecutionContext): Promise<InteractionRecord> {
    const { config } = node;
    const now = this.clock.now();
    const timeout = config.timeout ?? context.workflow.config.timeout;
    const interactionId = randomUUID();
    const request: UserInteractionRequest = {
      interactionId,
      threadId: context.thread.threadId,
      workflowId: context.workflow.id,
      nodeId: node.id,
      operationType: config.operationType,
      prompt: stringify(renderTemplate(config.prompt, context.scopes.all())),
      ...(config.input === undefined ? {} : { input: config.input }),
      timeout,
      deadline: timeout > 0 ? new Date(now + timeout).toISOString() : null,
      metadata: config.metadata,
      session: { channel: context.thread.channel, sessionId: context.thread.threadId },
      requestedAt: new Date(now).toISOString(),
    };
    const interaction: InteractionRecord = {
      interactionId,
      threadId: context.thread.threadId,
      nodeId: node.id,
      request,
      status: 'pending',
      deadline: request.deadline,
      createdAt: request.requestedAt,
      updatedAt: request.requestedAt,
    };
    // The one rule for every wait: stored before anybody is asked.
    await this.store.createInteraction(interaction);
    context.thread.pendingInteractionId = interactionId;
    context.thread.status = 'waiting';
    await context.checkpoint();
    context.emit({
      type: 'USER_INTERACTION_REQUESTED',
      interactionId,
      nodeId: node.id,
      operationType: config.operationType,
      request,
    });
    return interaction;
  }

  /** Waits for an answer in this process, or returns 'suspend' for a durable wait. */
  private async awaitAnswer(interaction: InteractionRecord, context: NodeExecutionContext): Promise<InteractionRecord | 'suspend'> {
    const { interactionId } = interaction;
    const deadline = interaction.deadline === null ? undefined : Date.parse(interaction.deadline);
    if (deadline !== undefined && deadline <= this.clock.now()) {
      return this.settle(interactionId, 'timeout', 'nobody answered before the deadline');
    }
    if (context.signal.aborted) return this.onAbort(interactionId, context.signal);
    if (context.thread.channel === NO_RESPONDER_CHANNEL) {
      return this.settle(interactionId, 'no_handler', `the thread runs on channel "${NO_RESPONDER_CHANNEL}": nobody can answer`);
    }
    const handler = this.handlers.get(context.thread.channel);
    if (!handler) return 'suspend';

    const abort = new AbortController();
    const settled = await firstValueFrom(
      race<Settled[]>(
        this.askHandler(handler, interaction, context, abort.signal),
        this.responses.answered$(interactionId).pipe(map((): Settled => ({ kind: 'answered_elsewhere' }))),
        deadline === undefined ? NEVER : timerUntil(deadline, this.clock).pipe(map((): Settled => ({ kind: 'timeout' }))),
        fromEvent(context.signal, 'abort').pipe(map((): Settled => ({ kind: 'cancelled' }))),
      ),
    );
    abort.abort();
    this.responses.forget(interactionId);
    if (settled.kind === 'cancelled') return this.onAbort(interactionId, context.signal);
    return this.record(interaction, settled);
  }

  private askHandler(
    handler: IUserInteractionHandler,
    interaction: InteractionRecord,
    context: NodeExecutionContext,
    signal: AbortSignal,
  ): Observable<Settled> {
    const handlerContext: UserInteractionContext = {
      threadId: context.thread.threadId,
      workflowId: context.workflow.id,
      nodeId: interaction.nodeId,
      timeout: interaction.request.timeout,
      signal,
      conversation: structuredClone(context.thread.conversation),
      events: this.bus.events$.pipe(forThread(context.thread.threadId)),
      getVariable: (name) => context.scopes.get(name),
      getVariables: () => context.scopes.all(),
      setVariable: (name, value, scope) => {
        context.scopes.set(name, value, scope);
      },
    };
    return from(Promise.resolve().then(() => handler.handle(interaction.request, handlerContext))).pipe(
      map((result): Settled => ({ kind: 'handler', result })),
      catchError((error: unknown) => of<Settled>({ kind: 'handler_error', error })),
    );
  }

  /** Stores what ended the wait, first writer wins; returns the interaction as stored. */
  private async record(interaction: InteractionRecord, settled: Settled): Promise<InteractionRecord | 'suspend'> {
    const { interactionId } = interaction;
    switch (settled.kind) {
      case 'answered_elsewhere':
        return this.reload(interactionId);
      case 'timeout':
        return this.settle(interactionId, 'timeout', 'nobody answered before the deadline');
      case 'cancelled':
        return this.settle(interactionId, 'cancelled', 'the thread was cancelled');
      case 'handler_error':
        return this.settle(interactionId, 'handler_error', `the handler failed: ${toInterlockError(settled.error).message}`);
      case 'handler':
        break;
    }
    const parsed = UserInteractionHandlerResult.safeParse(settled.result);
    if (!parsed.success) {
      return this.settle(interactionId, 'invalid_response', `the handler returned something that is not a handler result: ${parsed.error.issues[0]?.message}`);
    }
    const result = parsed.data;
    if (result.outcome === 'deferred') return 'suspend';
    if (result.outcome === 'cancelled') return this.settle(interactionId, 'cancelled', result.reason ?? 'the person cancelled');
    let input: unknown;
    try {
      input = interpretInput(interaction.request.input, result.input);
    } catch (error) {
      return this.settle(interactionId, 'invalid_response', toInterlockError(error).message);
    }
    await this.store.recordResponse(interactionId, {
      input,
      ...(result.responder === undefined ? {} : { responder: result.responder }),
      respondedAt: new Date(this.clock.now()).toISOString(),
    });
    return this.reload(interactionId);
  }

  /** Closing the process is not cancelling the thread: a shutdown leaves the wait in the store. */
  private async onAbort(interactionId: string, signal: AbortSignal): Promise<InteractionRecord | 'suspend'> {
    if (signal.reason === SHUTDOWN) return 'suspend';
    return this.settle(interactionId, 'cancelled', typeof signal.reason === 'string' ? signal.reason : 'the thread was cancelled');
  }

  private async settle(interactionId: string, reason: InteractionFailureReason, message: string): Promise<InteractionRecord> {
    await this.store.failInteraction(interactionId, reason, message);
    return this.reload(interactionId);
  }

  private async reload(interactionId: string): Promise<InteractionRecord> {
    const interaction = await this.store.getInteraction(interactionId);
    if (!interaction) throw new InterlockError('INTERACTION_NOT_FOUND', `interaction ${interactionId} vanished from the store`);
    return interaction;
  }

  private failed(interaction: InteractionRecord, context: NodeExecutionContext): NodeOutcome {
    this.responses.forget(interaction.interactionId);
    const reason = interaction.failureReason ?? 'handler_error';
    const message = interaction.failureMessage ?? reason;
    context.thread.pendingInteractionId = null;
    context.thread.status = 'running';
    context.emit({
      type: 'USER_INTERACTION_FAILED',
      interactionId: interaction.interactionId,
      nodeId: interaction.nodeId,
      operationType: interaction.request.operationType,
      reason,
      message,
    });
    if (reason === 'cancelled') return { kind: 'cancelled', reason: message };
    throw new InterlockError(FAILURE_CODES[reason], `interaction at node "${interaction.nodeId}" failed (${reason}): ${message}`, {
      details: { interactionId: interaction.interactionId, reason },
    });
  }

  private async process(
    node: NodeOfType<'USER_INTERACTION'>,
    interaction: InteractionRecord,
    context: NodeExecutionContext,
  ): Promise<NodeOutcome> {
    this.responses.forget(interaction.interactionId);
    const response = interaction.response;
    if (!response) throw new InterlockError('INTERNAL', `interaction ${interaction.interactionId} is responded but has no response`);
    const base = { interactionId: interaction.interactionId, nodeId: node.id, operationType: node.config.operationType };
    context.thread.pendingInteractionId = null;
    context.thread.status = 'running';
    context.emit({
      type: 'USER_INTERACTION_RESPONDED',
      ...base,
      input: response.input,
      ...(response.responder === undefined ? {} : { responder: response.responder }),
    });
    const variables = { ...context.scopes.all(), input: response.input };
    const { config } = node;
    try {
      if (config.operationType === 'UPDATE_VARIABLES') {
        const updated: Record<string, unknown> = {};
        for (const assignment of config.variables) {
          const value = renderTemplate(assignment.expression, { ...variables, ...updated });
          context.scopes.set(assignment.variableName, value, assignment.scope);
          updated[assignment.variableName] = value;
        }
        await this.store.markProcessed(interaction.interactionId);
        context.emit({ type: 'USER_INTERACTION_PROCESSED', ...base, updatedVariables: updated });
      } else {
        const content = stringify(renderTemplate(config.message.contentTemplate, variables));
        context.thread.conversation.push({ role: config.message.role, content, nodeId: node.id });
        await this.store.markProcessed(interaction.interactionId);
        context.emit({ type: 'USER_INTERACTION_PROCESSED', ...base, appendedMessage: content });
      }
    } catch (error) {
      const failure = toInterlockError(error);
      context.emit({ type: 'USER_INTERACTION_FAILED', ...base, reason: 'invalid_response', message: failure.message });
      throw new InterlockError('INTERACTION_INVALID_RESPONSE', `the answer to node "${node.id}" could not be applied: ${failure.message}`, {
        cause: failure,
      });
    }
    return { kind: 'next' };
  }
}
