import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { catchError, firstValueFrom, from, fromEvent, map, NEVER, of, race, type Observable } from 'rxjs';
import {
  UserInteractionHandlerResult,
  type IUserInteractionHandler,
  type UserInteractionContext,
  type UserInteractionRequest,
} from '@interlock/sdk-types';
import { TYPES } from '../di/tokens.js';
import { InterlockError, toInterlockError } from '../errors/interlock-error.js';
import { timerUntil, type Clock, isoTime } from '../engine/clock.js';
import type { NodeExecutionContext } from '../engine/node-executor.js';
import { failpoint, isArmed } from '../engine/failpoints.js';
import { isStop } from '../engine/shutdown.js';
import type { Effects } from '../engine/step.js';
import { stopWaitingOn, waitOn } from '../engine/transitions.js';
import type { ThreadClaims } from '../engine/thread-claims.js';
import type { EventBus } from '../events/event-bus.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { InteractionResponses } from './interaction-responses.js';
import type { ResponseInterpreter } from './response-interpreter.js';
import type { JobPlanner } from '../workers/job-planner.js';

/** The channel that means "nobody can answer": interactions fail with `no_handler`. */
export const NO_RESPONDER_CHANNEL = 'none';

/** What a new interaction asks; the gateway adds ids, times and the session. */
export type InteractionSpec = Omit<
  UserInteractionRequest,
  'interactionId' | 'threadId' | 'workflowId' | 'deadline' | 'session' | 'requestedAt'
>;

type Settled =
  | { kind: 'handler'; result: UserInteractionHandlerResult }
  | { kind: 'handler_error'; error: unknown }
  | { kind: 'answered_elsewhere' }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

/**
 * Every wait for a person goes through here (ARCHITECTURE.md, "one rule for every wait"):
 * interactions are stored with the thread waiting on them, in one durability point, before
 * anybody is asked; then the channel's handler in this process is asked, or the thread
 * suspends until `respond()`. Timeouts, cancellation, handler errors and malformed answers
 * settle the interaction as failed with their reason; the first writer wins.
 */
@injectable()
export class InteractionGateway {
  constructor(
    @inject(TYPES.CheckpointStore) private readonly store: ICheckpointStore,
    @inject(TYPES.EventBus) private readonly bus: EventBus,
    @inject(TYPES.Handlers) private readonly handlers: Map<string, IUserInteractionHandler>,
    @inject(TYPES.InteractionResponses) private readonly responses: InteractionResponses,
    @inject(TYPES.ResponseInterpreter) private readonly interpreter: ResponseInterpreter,
    @inject(TYPES.Clock) private readonly clock: Clock,
    @inject(TYPES.ThreadClaims) private readonly claims: ThreadClaims,
    @inject(TYPES.JobPlanner) private readonly jobs: JobPlanner,
  ) {}

  /**
   * Opens new interactions: the thread waits on them (`withRecords` also names them in the
   * node's state) and they are committed together, with their deadline jobs and what else
   * is pending, before anyone is asked; then they are announced (REQUESTED).
   */
  async open(
    specs: InteractionSpec[],
    context: NodeExecutionContext,
    withRecords: (thread: ThreadRecord, records: InteractionRecord[]) => ThreadRecord,
    effects: Effects = {},
  ): Promise<InteractionRecord[]> {
    const now = this.clock.now();
    const { thread } = context;
    const records = specs.map((spec): InteractionRecord => {
      const request: UserInteractionRequest = {
        ...spec,
        interactionId: randomUUID(),
        threadId: thread.threadId,
        workflowId: context.workflow.id,
        deadline: spec.timeout > 0 ? new Date(now + spec.timeout).toISOString() : null,
        session: {
          channel: thread.channel,
          sessionId: thread.session.sessionId,
          ...(thread.session.chatId === undefined ? {} : { chatId: thread.session.chatId }),
          ...(thread.session.parentThreadId === undefined ? {} : { parentThreadId: thread.session.parentThreadId }),
          ...(thread.session.requestedBy === undefined ? {} : { requestedBy: thread.session.requestedBy }),
        },
        requestedAt: isoTime(now),
      };
      return {
        interactionId: request.interactionId,
        threadId: thread.threadId,
        nodeId: spec.nodeId,
        request,
        status: 'pending',
        deadline: request.deadline,
        createdAt: request.requestedAt,
        updatedAt: request.requestedAt,
      };
    });
    const ids = records.map((record) => record.interactionId);
    await context.apply({
      next: waitOn(withRecords(thread, records), ids),
      effects: {
        ...effects,
        interactions: [
          ...(effects.interactions ?? []),
          ...records.map((interaction) => ({ kind: 'open' as const, interaction })),
        ],
        // Each with its deadline job when threads continue in workers: it fires in whichever process is alive.
        jobs: [...(effects.jobs ?? []), ...this.jobs.forInteractions(thread, records)],
        events: [
          ...(effects.events ?? []),
          ...records.map((record) => ({
            type: 'USER_INTERACTION_REQUESTED' as const,
            interactionId: record.interactionId,
            nodeId: record.nodeId,
            operationType: record.request.operationType,
            request: record.request,
          })),
        ],
        // The question exists durably before anybody can see it: at once when a handler here
        // asks, else with the run's last commit (the thread suspends right after).
        ...(this.asksHere(thread) ? { durable: 'now' as const } : { announceAfterCommit: true as const }),
      },
    });
    // A crash test kills the process here with the question stored.
    if (isArmed('interaction:requested')) {
      await context.run.commit();
      failpoint('interaction:requested');
    }
    return records;
  }

  /** Whether a handler of this process asks the thread's questions (the run waits here, holding its claim). */
  private asksHere(thread: ThreadRecord): boolean {
    return thread.channel !== NO_RESPONDER_CHANNEL && this.handlers.has(thread.channel);
  }

  /**
   * Waits for every pending interaction given, concurrently. Returns them as stored once
   * settled; `suspendedIds` are those that still wait for a responder outside this process.
   */
  async settle(
    interactions: InteractionRecord[],
    context: NodeExecutionContext,
  ): Promise<{ settled: InteractionRecord[]; suspendedIds: string[] }> {
    // The run holds the thread's claim while a handler here asks: another process that
    // gets an answer only stores it, and the poll in awaitOne picks it up.
    const results = await Promise.all(
      interactions.map((interaction) =>
        interaction.status === 'pending' ? this.awaitOne(interaction, context) : Promise.resolve(interaction),
      ),
    );
    const settled = results.filter((result): result is InteractionRecord => result !== 'suspend');
    const suspendedIds = interactions
      .filter((_, index) => results[index] === 'suspend')
      .map((interaction) => interaction.interactionId);
    return { settled, suspendedIds };
  }

  /** The thread no longer waits on this interaction (a transition; forgets an early answer too). */
  release(thread: ThreadRecord, interactionId: string): ThreadRecord {
    this.responses.forget(interactionId);
    return stopWaitingOn(thread, interactionId);
  }

  /** An interaction of the running thread, as the run knows it. */
  load(interactionId: string, context: NodeExecutionContext): InteractionRecord {
    const interaction = context.run.interaction(interactionId);
    if (!interaction)
      throw new InterlockError('INTERACTION_NOT_FOUND', `interaction ${interactionId} is missing from the store`);
    return interaction;
  }

  private async awaitOne(
    interaction: InteractionRecord,
    context: NodeExecutionContext,
  ): Promise<InteractionRecord | 'suspend'> {
    const { interactionId } = interaction;
    const deadline = interaction.deadline === null ? undefined : Date.parse(interaction.deadline);
    if (deadline !== undefined && deadline <= this.clock.now()) {
      return context.run.failInteraction(interactionId, 'timeout', 'nobody answered before the deadline');
    }
    if (context.signal.aborted) return this.onAbort(interactionId, context);
    if (context.thread.channel === NO_RESPONDER_CHANNEL) {
      return context.run.failInteraction(
        interactionId,
        'no_handler',
        `the thread runs on channel "${NO_RESPONDER_CHANNEL}": nobody can answer`,
      );
    }
    const handler = this.handlers.get(context.thread.channel);
    // A call that needs several approvers (F51) waits for them durably: each answers with respond().
    if (!handler || interaction.request.toolApproval?.quorum !== undefined) return 'suspend';

    const abort = new AbortController();
    const settled = await firstValueFrom(
      race<Settled[]>(
        this.askHandler(handler, interaction, context, abort.signal),
        this.responses.answered$(interactionId).pipe(map((): Settled => ({ kind: 'answered_elsewhere' }))),
        this.claims.settledElsewhere$(interactionId).pipe(map((): Settled => ({ kind: 'answered_elsewhere' }))),
        deadline === undefined
          ? NEVER
          : timerUntil(deadline, this.clock).pipe(map((): Settled => ({ kind: 'timeout' }))),
        fromEvent(context.signal, 'abort').pipe(map((): Settled => ({ kind: 'cancelled' }))),
      ),
    );
    abort.abort();
    this.responses.forget(interactionId);
    return this.record(interaction, settled, context);
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
      events: this.bus.thread$(context.thread.threadId),
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

  private async record(
    interaction: InteractionRecord,
    settled: Settled,
    context: NodeExecutionContext,
  ): Promise<InteractionRecord | 'suspend'> {
    const { interactionId } = interaction;
    const { run } = context;
    switch (settled.kind) {
      case 'answered_elsewhere':
        return this.reread(interactionId, context);
      case 'timeout':
        return run.failInteraction(interactionId, 'timeout', 'nobody answered before the deadline');
      case 'cancelled':
        return this.onAbort(interactionId, context);
      case 'handler_error':
        return run.failInteraction(
          interactionId,
          'handler_error',
          `the handler failed: ${toInterlockError(settled.error).message}`,
        );
      case 'handler':
        break;
    }
    const parsed = UserInteractionHandlerResult.safeParse(settled.result);
    if (!parsed.success) {
      return run.failInteraction(
        interactionId,
        'invalid_response',
        `the handler returned something that is not a handler result: ${parsed.error.issues[0]?.message ?? parsed.error.message}`,
      );
    }
    const result = parsed.data;
    if (result.outcome === 'deferred') return 'suspend';
    if (result.outcome === 'cancelled')
      return run.failInteraction(interactionId, 'cancelled', result.reason ?? 'the person cancelled');
    let input: unknown;
    try {
      input = this.interpreter.interpret(interaction, result.input);
    } catch (error) {
      return run.failInteraction(interactionId, 'invalid_response', toInterlockError(error).message);
    }
    // The person was told their answer was taken: it is durable before the run goes on.
    const answered = await run.answer(interactionId, {
      input,
      ...(result.responder === undefined ? {} : { responder: result.responder }),
      respondedAt: isoTime(this.clock.now()),
    });
    failpoint('interaction:answer-stored');
    return answered;
  }

  /** An interaction another process (or `respond()` here) settled: read as stored. */
  private async reread(interactionId: string, context: NodeExecutionContext): Promise<InteractionRecord> {
    const stored = await this.store.getInteraction(interactionId);
    if (!stored)
      throw new InterlockError('INTERACTION_NOT_FOUND', `interaction ${interactionId} is missing from the store`);
    context.run.learn(stored);
    return stored;
  }

  /** Closing the process (or losing the claim) is not cancelling the thread: the wait stays in the store. */
  private async onAbort(interactionId: string, context: NodeExecutionContext): Promise<InteractionRecord | 'suspend'> {
    const { signal } = context;
    if (isStop(signal.reason)) return 'suspend';
    return context.run.failInteraction(
      interactionId,
      'cancelled',
      typeof signal.reason === 'string' ? signal.reason : 'the thread was cancelled',
    );
  }
}
