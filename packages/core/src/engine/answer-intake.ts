import { InterlockError } from '../errors/interlock-error.js';
import type { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import { isRepeatedAnswer } from '../interaction/answer-checks.js';
import type { JobPlanner } from '../workers/job-planner.js';
import type { Clock } from './clock.js';
import { durable, failpointAfterCommit } from './durability.js';
import type { ThreadDefinitions } from './thread-definitions.js';

/** What taking an answer in came to. */
export type Intake =
  /**
   * Nothing more to do: the answer was refused as late or already answered, stored and
   * scheduled for a worker, or (a retry) applied already.
   */
  | {
      kind: 'answered';
      status: 'already_answered' | 'expired' | 'scheduled' | 'applied';
      threadId: string;
      repeated?: true;
    }
  /** Stored (or stored before, the same answer: `repeated`): the thread is to be taken forward. */
  | { kind: 'stored'; interaction: InteractionRecord; thread: ThreadRecord; repeated: boolean };

/** What the intake needs of the runner. */
export interface IntakeHooks {
  /** Whether this process runs the thread right now (it then takes the answer itself). */
  isRunningHere(threadId: string): boolean;
  /** Whether a live run, here or in another process, holds the thread's claim. */
  isHeldByLiveRun(thread: ThreadRecord): boolean;
  /** Times out an interaction whose deadline passed. */
  expire(interaction: InteractionRecord): Promise<void>;
  /** Retires a question stored just before a crash that its thread never asked. */
  retire(interactionId: string): Promise<void>;
}

/**
 * Takes an answer in (the first half of `respond()`): refuses what can be refused before
 * anything is written (unknown interaction, late or orphan questions, a thread whose
 * workflow changed, an input its kind cannot take), then stores the answer — with the job
 * that continues its thread, when threads continue in workers — first writer wins. The
 * same answer again is taken as a retry of the same call.
 */
export class AnswerIntake {
  constructor(
    private readonly store: ICheckpointStore,
    private readonly interpreter: ResponseInterpreter,
    private readonly definitions: ThreadDefinitions,
    private readonly jobs: JobPlanner,
    private readonly clock: Clock,
    private readonly hooks: IntakeHooks,
  ) {}

  async take(interactionId: string, input: unknown, responder: string | undefined): Promise<Intake> {
    const interaction = await this.store.getInteraction(interactionId);
    if (!interaction) {
      throw new InterlockError(
        'INTERACTION_NOT_FOUND',
        `no interaction ${interactionId}: list what waits with interlock.pending()`,
      );
    }
    const { threadId } = interaction;
    if (interaction.status !== 'pending') return this.answeredBefore(interaction, input, responder);
    // A question stored just before a crash, before its thread was checkpointed as waiting
    // on it, is an orphan nobody may answer: the thread asks again when it resumes. While a
    // live claim holds the thread, its run is about to checkpoint the wait (an answerer
    // that hears of questions as they are stored can be that fast): the answer is taken,
    // and the run finds it when it suspends.
    const thread = await this.store.getThread(threadId);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    if (!thread.pendingInteractionIds.includes(interactionId) && !this.hooks.isHeldByLiveRun(thread)) {
      await this.hooks.retire(interactionId);
      return { kind: 'answered', status: 'expired', threadId };
    }
    if (interaction.deadline !== null && Date.parse(interaction.deadline) <= this.clock.now()) {
      await this.hooks.expire(interaction);
      return { kind: 'answered', status: 'expired', threadId };
    }
    // With workers, the answer and the job that continues the thread are stored together.
    const scheduled = this.jobs.enabled && !this.hooks.isRunningHere(threadId);
    // A worker serving the thread's version checks its definitions; this process does only if it goes on with it.
    if (!scheduled) this.definitions.check(thread);
    const value = this.interpreter.interpret(interaction, input);
    const recorded = await this.store.recordResponse(
      interactionId,
      {
        input: value,
        ...(responder === undefined ? {} : { responder }),
        respondedAt: new Date(this.clock.now()).toISOString(),
      },
      scheduled ? this.jobs.forAnswer(thread, interactionId) : [],
    );
    if (recorded.status === 'not_found')
      throw new InterlockError('INTERACTION_NOT_FOUND', `interaction ${interactionId} was removed from the store`);
    if (recorded.status !== 'recorded') return this.answeredBefore(recorded.interaction, input, responder);
    await failpointAfterCommit('interaction:answer-stored', this.store);
    if (!scheduled) return { kind: 'stored', interaction, thread, repeated: false };
    await durable(this.store);
    return { kind: 'answered', status: 'scheduled', threadId };
  }

  /** An answer to an interaction answered before: the same answer again is accepted (a retry), another is refused. */
  private async answeredBefore(
    interaction: InteractionRecord,
    input: unknown,
    responder: string | undefined,
  ): Promise<Intake> {
    const { threadId } = interaction;
    if (interaction.status === 'failed' && interaction.failureReason === 'timeout')
      return { kind: 'answered', status: 'expired', threadId };
    if (!isRepeatedAnswer(interaction.response, () => this.interpreter.interpret(interaction, input), responder))
      return { kind: 'answered', status: 'already_answered', threadId };
    if (interaction.status !== 'responded') return { kind: 'answered', status: 'applied', threadId, repeated: true };
    // Stored and not applied (the first call's continuation stalled): go on now, or make sure a worker will.
    const thread = await this.store.getThread(threadId);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    if (!this.jobs.enabled) return { kind: 'stored', interaction, thread, repeated: true };
    await this.store.scheduleJobs?.(this.jobs.forAnswer(thread, interaction.interactionId));
    return { kind: 'answered', status: 'scheduled', threadId, repeated: true };
  }
}
