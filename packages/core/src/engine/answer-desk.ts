import type { WorkflowDefinition } from '@interlock/sdk-types';
import { auditDigest, type AuditAnchor } from '../audit/audit-chain.js';
import type { AuditEntry, AuditEntryInput } from '../audit/audit-log.js';
import { InterlockError } from '../errors/interlock-error.js';
import { continuationOfApplied } from '../interaction/answer-checks.js';
import type { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type {
  ICheckpointStore,
  InteractionRecord,
  StoredThread,
  ThreadRecord,
} from '../persistence/checkpoint-store.js';
import type { AuditDraft, GlobalChange, InteractionChange, UnitOfWork } from '../persistence/unit-of-work.js';
import type { JobPlanner } from '../workers/job-planner.js';
import { planAnswer, type AnswerInput, type AnswerPlan, type AnswerSeen } from './answer-plan.js';
import { isoTime, type Clock } from './clock.js';
import { planEscalation } from './escalations.js';
import { failpoint, isArmed } from './failpoints.js';
import type { EmittedEvent } from './node-executor.js';
import type { RespondResult } from './respond-result.js';

/** How many times the desk reads and plans an answer again after the store refused its commit. */
const MAX_PLANS = 20;

/** What the desk tells the runner to do with an answer. */
export type DeskAnswer =
  /** Tell the answerer `result`. `goOn`: take this thread forward right after (it still waits on a question timed out). */
  | { kind: 'told'; result: RespondResult; goOn?: string }
  /** Take the thread forward in this process, the answer (`changes`) stored by the first commit of its run. */
  | { kind: 'fold'; threadId: string; interactionId: string; changes: InteractionChange[]; stored: StoredThread }
  /**
   * The answer is stored (now, or before: `repeated`): take the thread forward, or leave it to
   * the run of this process or the process that holds it. `notify`: a run here may wait for it.
   */
  | { kind: 'continue'; threadId: string; interactionId: string; notify: boolean; repeated?: true };

/** What the desk needs to know of this process. */
export interface DeskProcess {
  /** This process's owner id. */
  readonly owner: string;
  /** Whether a run of this process holds the thread or is being set up for it. */
  runsHere(threadId: string): boolean;
  /** Publishes one of the thread's events (the engine adds thread, workflow and time). */
  publish(thread: ThreadRecord, event: EmittedEvent): void;
  /** Refuses, without reading or writing, a thread whose loaded definitions are not the ones it runs. */
  checkDefinitions(thread: ThreadRecord): void;
}

/**
 * The one writer outside a thread's run (`Run` writes what a run does; the job runner, its
 * jobs): answers given through `respond()`, deadlines, escalations, questions let go, refused
 * attempts, threads handed to workers, definitions, audit anchors and the engine's own global
 * variables (receipt keys, web sessions: `keepGlobals`). An answer is read once
 * (the interaction and its thread, one read where the store can), planned by the pure
 * `planAnswer`, and carried out in one commit; when the store refuses that commit (another
 * answer, an approval or a claim came first), it is read and planned again, a bounded number
 * of times. What it cannot finish alone — a thread to take forward here — it hands back to
 * the runner as a value (`fold`, `continue`), once.
 */
export class AnswerDesk {
  constructor(
    private readonly store: ICheckpointStore,
    private readonly interpreter: ResponseInterpreter,
    private readonly jobs: JobPlanner,
    private readonly clock: Clock,
    private readonly process: DeskProcess,
  ) {}

  /**
   * Plans and carries out an answer. `notFolded`: the run this process started to apply it
   * stored nothing (see `AnswerSeen.notFolded`), so it is stored on its own now.
   *
   * @throws InterlockError INTERACTION_NOT_FOUND, THREAD_NOT_FOUND, INTERACTION_INVALID_RESPONSE,
   * APPROVAL_NOT_ALLOWED, WORKFLOW_CHANGED, WORKFLOW_VERSION_MISMATCH: nothing was stored.
   */
  async answer(
    interactionId: string,
    raw: unknown,
    responder: string | undefined,
    notFolded?: AnswerSeen['notFolded'],
  ): Promise<DeskAnswer> {
    for (let attempt = 1; ; attempt += 1) {
      const seen = await this.read(interactionId, notFolded);
      const input = this.interpret(seen.interaction, raw);
      const plan = planAnswer(seen, input, responder, this.clock.now());
      const done = await this.carryOut(plan, seen);
      if (done !== 'conflict') return done;
      if (attempt >= MAX_PLANS)
        throw new InterlockError(
          'STORE_CONFLICT',
          `interaction ${interactionId} kept changing while this answer was taken in (other answers or approvals came first): answer again`,
        );
    }
  }

  /** Reads what an answer is planned from: the interaction and its thread, in one read where the store can. */
  private async read(interactionId: string, notFolded: AnswerSeen['notFolded']): Promise<AnswerSeen> {
    const loaded = await this.store.loadThreadOf?.(interactionId);
    const interaction =
      loaded?.interactions.find((candidate) => candidate.interactionId === interactionId) ??
      (await this.store.getInteraction(interactionId));
    const stored =
      loaded ?? (interaction === undefined ? undefined : await this.store.loadThread(interaction.threadId));
    let definitions: InterlockError | undefined;
    try {
      if (stored !== undefined) this.process.checkDefinitions(stored.thread);
    } catch (error) {
      if (!InterlockError.is(error)) throw error;
      definitions = error;
    }
    return {
      interactionId,
      interaction,
      stored,
      runningHere: interaction !== undefined && this.process.runsHere(interaction.threadId),
      owner: this.process.owner,
      workers: this.jobs.enabled,
      ...(definitions === undefined ? {} : { definitions }),
      ...(notFolded === undefined ? {} : { notFolded }),
      storeFirst: isArmed('interaction:answer-stored'),
    };
  }

  /** The answer as the interpreter reads it for this interaction (nothing to read without one). */
  private interpret(interaction: InteractionRecord | undefined, raw: unknown): AnswerInput {
    if (interaction === undefined) return { value: raw };
    try {
      return { value: this.interpreter.interpret(interaction, raw) };
    } catch (error) {
      if (InterlockError.is(error)) return { refused: error };
      throw error;
    }
  }

  /** Carries a plan out: its one commit (if it writes), then what the runner is told; 'conflict' to plan again. */
  private async carryOut(plan: AnswerPlan, seen: AnswerSeen): Promise<DeskAnswer | 'conflict'> {
    const { interactionId } = seen;
    switch (plan.kind) {
      case 'refuse':
        return this.refuse(plan, interactionId);
      case 'repeat': {
        const { threadId } = plan;
        if (plan.counted !== undefined) {
          const { given, required } = plan.counted;
          return accepted(threadId, { status: 'awaiting-approvals', given, required }, true);
        }
        return accepted(threadId, continuationOfApplied({ status: plan.threadStatus ?? 'running' }), true);
      }
      case 'count': {
        const result = await this.store.commit({ interactions: [plan.change], audit: [this.draft(plan.audit)] });
        if (result.status === 'conflict') return 'conflict';
        const { given, required } = plan;
        return accepted(plan.threadId, { status: 'awaiting-approvals', given, required });
      }
      case 'store':
        return this.storeAlone(plan, interactionId, seen.stored);
      case 'fold':
        return { kind: 'fold', threadId: plan.threadId, interactionId, changes: plan.changes, stored: plan.stored };
      case 'continue':
        if (!plan.schedule)
          return { kind: 'continue', threadId: plan.threadId, interactionId, notify: false, repeated: true };
        // Stored and not applied: make sure a worker takes it on.
        return this.scheduled(seen.stored, interactionId, [], true);
    }
  }

  private async refuse(
    plan: Extract<AnswerPlan, { kind: 'refuse' }>,
    interactionId: string,
  ): Promise<DeskAnswer | 'conflict'> {
    if (plan.error !== undefined) throw plan.error;
    const threadId = plan.threadId ?? '';
    if (plan.reason === 'already-answered') return { kind: 'told', result: { status: 'already_answered', threadId } };
    if (plan.timeOut === true || plan.retire === true) {
      const change = plan.timeOut === true ? this.timeout(interactionId) : this.letGo(interactionId);
      const result = await this.store.commit({ interactions: [change] });
      // Answered or failed meanwhile: what it is now decides.
      if (result.status === 'conflict' || !result.failed.includes(interactionId)) return 'conflict';
    }
    // A late answer is told "expired" first; the thread goes on right after.
    return { kind: 'told', result: { status: 'expired', threadId }, ...(plan.goOn === true ? { goOn: threadId } : {}) };
  }

  private async storeAlone(
    plan: Extract<AnswerPlan, { kind: 'store' }>,
    interactionId: string,
    stored: StoredThread | undefined,
  ): Promise<DeskAnswer | 'conflict'> {
    const { threadId, changes } = plan;
    if (plan.for === 'worker') return this.scheduled(stored, interactionId, changes);
    const result = await this.store.commit({ interactions: changes });
    if (result.status === 'conflict') return 'conflict';
    failpoint('interaction:answer-stored');
    switch (plan.for) {
      case 'taken':
        // Another process took the thread between the read and the run's first commit: it applies the answer.
        return accepted(threadId, { status: 'elsewhere' });
      case 'stalled': {
        const failure = plan.error ?? new InterlockError('INTERNAL', 'the thread did not go on');
        return accepted(threadId, { status: 'stalled', code: failure.code, message: failure.message });
      }
      case 'crash-test':
        return { kind: 'continue', threadId, interactionId, notify: false };
      default:
        // A run of this process, or of another, holds the thread: it picks the answer up.
        return { kind: 'continue', threadId, interactionId, notify: true };
    }
  }

  /**
   * Stores `changes` with the job that continues the thread in a worker. When they are the
   * answer alone (not a quorum's count), the job carries the thread as this unit leaves it, so
   * the worker does not read it back (issue 38).
   */
  private async scheduled(
    stored: StoredThread | undefined,
    interactionId: string,
    changes: InteractionChange[],
    repeated = false,
  ): Promise<DeskAnswer | 'conflict'> {
    const thread = stored?.thread;
    if (stored === undefined || thread === undefined)
      throw new InterlockError('INTERNAL', `the thread of interaction ${interactionId} was not read`);
    const [only] = changes;
    const carry = changes.length === 1 && only?.kind === 'answer' ? { stored, response: only.response } : undefined;
    const result = await this.store.commit({
      ...(changes.length === 0 ? {} : { interactions: changes }),
      jobs: this.jobs.forAnswer(thread, interactionId, carry),
    });
    if (result.status === 'conflict') return 'conflict';
    if (changes.length > 0) failpoint('interaction:answer-stored');
    return accepted(thread.threadId, { status: 'scheduled' }, repeated);
  }

  /**
   * A deadline came: times the interaction out if it is still pending. Returns whether its
   * thread should go on now: this call timed it out, or (`again`: an earlier try failed, maybe
   * after the timeout was stored) it was timed out before.
   */
  async timeOut(interactionId: string, options: { again?: boolean } = {}): Promise<boolean> {
    const result = await this.store.commit({ interactions: [this.timeout(interactionId)] });
    if (result.status === 'committed' && result.failed.includes(interactionId)) return true;
    return options.again === true && (await this.store.getInteraction(interactionId))?.failureReason === 'timeout';
  }

  /**
   * Times out every interaction whose deadline passed while no process ran (a tool call it
   * asked about is denied); their threads report it when they next resume. Returns how many.
   */
  async expireOverdue(): Promise<number> {
    const now = this.clock.now();
    const overdue = (await this.store.listInteractions({ status: 'pending' })).filter(
      (interaction) => interaction.deadline !== null && Date.parse(interaction.deadline) <= now,
    );
    if (overdue.length === 0) return 0;
    const result = await this.store.commit({
      interactions: overdue.map((interaction) => this.timeout(interaction.interactionId)),
    });
    return result.status === 'committed' ? result.failed.length : 0;
  }

  /**
   * Offers an approval that waited past its escalation time to its escalation approvers (F51):
   * recorded, audited, USER_INTERACTION_ESCALATED. Returns whether this call did it.
   */
  async escalate(interactionId: string): Promise<boolean> {
    const interaction = await this.store.getInteraction(interactionId);
    const plan = planEscalation(interaction, this.clock.now());
    if (interaction === undefined || plan === undefined) return false;
    const result = await this.store.commit({ interactions: [plan.change], audit: [this.draft(plan.audit)] });
    if (result.status !== 'committed') return false;
    const thread = await this.store.getThread(interaction.threadId);
    if (thread !== undefined)
      this.process.publish(thread, {
        type: 'USER_INTERACTION_ESCALATED',
        interactionId,
        nodeId: interaction.nodeId,
        operationType: interaction.request.operationType,
        approvers: plan.approvers,
      });
    return true;
  }

  /**
   * Writes an answer that did not count to the audit trail (`attempt:refused` or
   * `attempt:lost`), against the interaction it tried to answer; undefined when there is none.
   */
  async recordAttempt(attempt: {
    interactionId: string;
    responder: string;
    result: 'refused' | 'lost';
    reason: string;
  }): Promise<AuditEntry | undefined> {
    const interaction = await this.store.getInteraction(attempt.interactionId);
    if (!interaction) return undefined;
    const approval = interaction.request.toolApproval;
    const result = await this.store.commit({
      audit: [
        this.draft({
          threadId: interaction.threadId,
          toolCallId: approval?.toolCallId ?? attempt.interactionId,
          toolName: approval?.toolName ?? `(${interaction.request.operationType})`,
          outcome: 'deny',
          decidedBy: 'attempt',
          rule: `attempt:${attempt.result}`,
          reason: attempt.reason,
          responder: attempt.responder,
          stage: approval?.stage ?? 'execution',
          originalArguments: approval?.toolParameters ?? {},
        }),
      ],
    });
    return result.status === 'committed' ? result.audit[0] : undefined;
  }

  /**
   * Hands a thread to the workers (a process that runs none): a new one stored unclaimed
   * with the job that runs it, or a stored one's job to continue.
   *
   * @throws InterlockError STORE_CONFLICT when a new thread's id is taken.
   */
  async handOver(thread: ThreadRecord, options: { create: boolean }): Promise<void> {
    // A new thread's continuation carries it (and the worker does not read it back: issue 38).
    const created = { ...thread, version: 1 };
    const unit: UnitOfWork = options.create
      ? {
          thread: { kind: 'create', thread: created },
          jobs: this.jobs.forHandOver(thread, { thread: created, interactions: [], toolCalls: [] }),
        }
      : { jobs: this.jobs.forHandOver(thread) };
    const result = await this.store.commit(unit);
    if (result.status === 'conflict')
      throw new InterlockError('STORE_CONFLICT', `thread ${thread.threadId} already exists`);
  }

  /** Keeps a definition threads run (the first one stored under its id and version stays). */
  async keepDefinition(workflow: WorkflowDefinition): Promise<void> {
    await this.store.commit({ definitions: [workflow] });
  }

  /** Stores the next audit anchor; false when another process anchored first. */
  async anchor(anchor: AuditAnchor): Promise<boolean> {
    return (await this.store.commit({ anchor })).status === 'committed';
  }

  /**
   * Keeps global variables of the engine's own scopes (`interlock:…`, no workflow's): receipt
   * keys, receipts of calls run outside a thread's run, the web app's sessions and their key.
   * False when the store refused the commit (a compare-and-set found another value).
   * @throws InterlockError INVALID_OPTIONS for another scope (its threads write a workflow's).
   */
  async keepGlobals(changes: readonly GlobalChange[]): Promise<boolean> {
    const foreign = changes.find((change) => !change.scope.startsWith('interlock:'));
    if (foreign !== undefined)
      throw new InterlockError(
        'INVALID_OPTIONS',
        `keepGlobals keeps interlock:… scopes only, not ${foreign.scope} (its threads write a workflow's)`,
      );
    return (await this.store.commit({ globals: changes })).status === 'committed';
  }

  /** Lets go of questions stored before a crash that their threads never asked (a store of an older version). */
  private letGo(interactionId: string): InteractionChange {
    return { kind: 'fail', interactionId, reason: 'cancelled', message: SUPERSEDED, at: this.iso() };
  }

  private timeout(interactionId: string): InteractionChange {
    return {
      kind: 'fail',
      interactionId,
      reason: 'timeout',
      message: 'nobody answered before the deadline',
      at: this.iso(),
    };
  }

  /** An audit entry ready for a unit: stamped now, with its content's digest. */
  private draft(input: AuditEntryInput): AuditDraft {
    const entry = { ...input, at: this.iso() };
    return { entry, digest: auditDigest(entry) };
  }

  private iso(): string {
    return isoTime(this.clock.now());
  }
}

/** Why a question stored before a crash and never asked by its thread is let go. */
export const SUPERSEDED = 'superseded: the process stopped before the thread asked this, and it asked again';

function accepted(
  threadId: string,
  continuation: Extract<RespondResult, { status: 'accepted' }>['continuation'],
  repeated = false,
): DeskAnswer {
  return {
    kind: 'told',
    result: { status: 'accepted', threadId, continuation, ...(repeated ? { repeated: true as const } : {}) },
  };
}
