import { InterlockError } from '../errors/interlock-error.js';
import type { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type {
  ICheckpointStore,
  InteractionRecord,
  InteractionResponseRecord,
  StoredThread,
  ThreadRecord,
} from '../persistence/checkpoint-store.js';
import type { InteractionChange } from '../persistence/unit-of-work.js';
import { isRepeatedAnswer } from '../interaction/answer-checks.js';
import type { JobPlanner } from '../workers/job-planner.js';
import type { Clock } from './clock.js';
import { failpoint } from './failpoints.js';
import { QuorumIntake } from './quorum-intake.js';
import type { ThreadDefinitions } from './thread-definitions.js';

/** How often the last approval of a call is counted again when other approvals came first (F51). */
const MAX_RECOUNTS = 20;

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
  /** An approval stored toward a call that needs several (F51): it waits for more. */
  | {
      kind: 'answered';
      status: 'awaiting-approvals';
      threadId: string;
      given: number;
      required: number;
      repeated?: true;
    }
  /**
   * Valid and not stored yet: the runner stores it (with the thread's run, or alone).
   * `before`: the last approval of a call that needs several, stored in the same unit.
   */
  | {
      kind: 'valid';
      interaction: InteractionRecord;
      stored: StoredThread;
      response: InteractionResponseRecord;
      before?: InteractionChange;
    }
  /** The same answer stored before and not applied yet (the first call's continuation stalled): take the thread on. */
  | { kind: 'stored-before'; interaction: InteractionRecord; thread: ThreadRecord };

/** What the intake needs of the runner. */
export interface IntakeHooks {
  /** Whether this process runs the thread right now (it then takes the answer itself). */
  isRunningHere(threadId: string): boolean;
  /** Whether a live run, here or in another process, holds the thread's claim. */
  isHeldByLiveRun(thread: ThreadRecord): boolean;
  /** Times out an interaction whose deadline passed. */
  expire(interaction: InteractionRecord): Promise<void>;
  /** Retires a question stored before a crash that its thread never asked (a store of an older version). */
  retire(interactionId: string): Promise<void>;
}

/**
 * Takes an answer in (the first half of `respond()`): refuses what can be refused before
 * anything is written (unknown interaction, late or orphan questions, a thread whose
 * workflow changed, an input its kind cannot take). With workers, stores the answer with
 * the job that continues its thread, in one unit of work; otherwise hands the valid answer
 * to the runner, which stores it with the first commit of the thread's run. First writer
 * wins; the same answer again, from the same responder, is taken as a retry of the same call.
 */
export class AnswerIntake {
  private readonly quorum: QuorumIntake;

  constructor(
    private readonly store: ICheckpointStore,
    private readonly interpreter: ResponseInterpreter,
    private readonly definitions: ThreadDefinitions,
    private readonly jobs: JobPlanner,
    private readonly clock: Clock,
    private readonly hooks: IntakeHooks,
  ) {
    this.quorum = new QuorumIntake(store, clock);
  }

  /** `recount`: how many times the approvals of the call changed under this answer (F51). */
  async take(interactionId: string, input: unknown, responder: string | undefined, recount = 0): Promise<Intake> {
    // The interaction and its thread in one read where the store can.
    const loaded = await this.store.loadThreadOf?.(interactionId);
    const interaction =
      loaded?.interactions.find((candidate) => candidate.interactionId === interactionId) ??
      (await this.store.getInteraction(interactionId));
    if (!interaction) {
      throw new InterlockError(
        'INTERACTION_NOT_FOUND',
        `no interaction ${interactionId}: list what waits with interlock.pending()`,
      );
    }
    const { threadId } = interaction;
    if (interaction.status !== 'pending') return this.answeredBefore(interaction, input, responder);
    const stored = loaded ?? (await this.store.loadThread(threadId));
    if (!stored) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    const { thread } = stored;
    // A question its thread does not wait on is an orphan nobody may answer (a store of an
    // older version could keep one from before a crash): the thread asks again when it
    // resumes. While a live claim holds the thread, its run is about to wait on it: the
    // answer is taken, and the run finds it when it suspends.
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
    const response: InteractionResponseRecord = {
      input: this.interpreter.interpret(interaction, input),
      ...(responder === undefined ? {} : { responder }),
      respondedAt: new Date(this.clock.now()).toISOString(),
    };
    // A call that needs several approvers (F51): an approval that is not the last is stored on its own.
    const counted = await this.quorum.count(interaction, thread, response);
    if (counted.kind === 'waiting') {
      const { given, required } = counted;
      const repeated = counted.repeated === true ? { repeated: true as const } : {};
      return { kind: 'answered', status: 'awaiting-approvals', threadId, given, required, ...repeated };
    }
    if (counted.kind === 'refused') return this.refused(counted.conflict, input, responder, threadId, recount);
    const before = counted.kind === 'last' ? { before: counted.change } : {};
    if (!scheduled) return { kind: 'valid', interaction, stored, response, ...before };
    const result = await this.store.commit({
      interactions: [
        ...(before.before === undefined ? [] : [before.before]),
        { kind: 'answer', interactionId, response },
      ],
      // The continuation carries the thread as this unit leaves it (not with a quorum's count).
      jobs: this.jobs.forAnswer(thread, interactionId, before.before === undefined ? { stored, response } : undefined),
    });
    if (result.status === 'conflict') return this.refused(result.conflict, input, responder, threadId, recount);
    failpoint('interaction:answer-stored');
    return { kind: 'answered', status: 'scheduled', threadId };
  }

  /** Stores a valid answer on its own (the thread's run is elsewhere); what came of it. */
  async storeAlone(intake: Extract<Intake, { kind: 'valid' }>, input: unknown): Promise<Intake | 'stored'> {
    const { interaction, response, before } = intake;
    const result = await this.store.commit({
      interactions: [
        ...(before === undefined ? [] : [before]),
        { kind: 'answer', interactionId: interaction.interactionId, response },
      ],
    });
    if (result.status === 'conflict')
      return this.refused(result.conflict, input, response.responder, interaction.threadId);
    failpoint('interaction:answer-stored');
    return 'stored';
  }

  /**
   * An answer the store refused: another came first, or the interaction is gone; or, for the
   * last approval of a call that needs several, the approvals changed meanwhile: counted again.
   */
  refused(
    conflict: { kind: string; interaction?: InteractionRecord },
    input: unknown,
    responder: string | undefined,
    threadId: string,
    recount = 0,
  ): Promise<Intake> {
    if (conflict.kind === 'interaction-not-pending' && conflict.interaction !== undefined)
      return this.answeredBefore(conflict.interaction, input, responder);
    if (conflict.kind === 'quorum-changed' && conflict.interaction !== undefined && recount < MAX_RECOUNTS)
      return this.take(conflict.interaction.interactionId, input, responder, recount + 1);
    throw new InterlockError(
      'INTERACTION_NOT_FOUND',
      `the interaction of thread ${threadId} was removed from the store`,
    );
  }

  /** An answer to an interaction answered before: the same answer again from the same person is accepted (a retry), another is refused. */
  async answeredBefore(interaction: InteractionRecord, input: unknown, responder: string | undefined): Promise<Intake> {
    const { threadId } = interaction;
    if (interaction.status === 'failed' && interaction.failureReason === 'timeout') {
      // Timed out, and its thread still waits on it with nobody taking it forward (it was
      // timed out by a process that did not go on with it): the thread goes on now (issue 35).
      const thread = await this.store.getThread(threadId);
      if (
        thread?.status === 'waiting' &&
        thread.pendingInteractionIds.includes(interaction.interactionId) &&
        !this.hooks.isHeldByLiveRun(thread)
      )
        await this.hooks.expire(interaction);
      return { kind: 'answered', status: 'expired', threadId };
    }
    if (
      interaction.response === undefined ||
      !isRepeatedAnswer(interaction.response, () => this.interpreter.interpret(interaction, input), responder)
    )
      return { kind: 'answered', status: 'already_answered', threadId };
    if (interaction.status !== 'responded') return { kind: 'answered', status: 'applied', threadId, repeated: true };
    // Stored and not applied (the first call's continuation stalled): go on now, or make sure a worker will.
    const thread = await this.store.getThread(threadId);
    if (!thread) throw new InterlockError('THREAD_NOT_FOUND', `no thread ${threadId} in the store`);
    if (!this.jobs.enabled) return { kind: 'stored-before', interaction, thread };
    await this.store.commit({ jobs: this.jobs.forAnswer(thread, interaction.interactionId) });
    return { kind: 'answered', status: 'scheduled', threadId, repeated: true };
  }
}
