import { randomUUID } from 'node:crypto';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import type { Subscription } from 'rxjs';
import { InterlockError } from '../errors/interlock-error.js';
import type { Interlock } from '../interlock.js';
import {
  decidedExactly,
  hasEnded,
  letsRun,
  readDecision,
  type GateCall,
  type GateDecision,
  type GatePending,
} from './gate-decisions.js';
import { gateReceipt } from './gate-receipts.js';
import type { GateToolbox } from './gate-tools.js';
import { gateWorkflowIds, type GateWorkflowIds } from './gate-workflows.js';
import type { GateContinuation, GateDecideOptions, GateOutcome, GatePause } from './gate-options.js';

export type {
  ApprovalGateOptions,
  GateContinuation,
  GateDecideOptions,
  GateOutcome,
  GatePause,
} from './gate-options.js';

const STOPPED_WAITING = 'the agent stopped waiting for the decision';

const ENDED = new Set(['THREAD_COMPLETED', 'THREAD_FAILED', 'THREAD_CANCELLED']);

/**
 * Interlock as the approval layer of an agent written on another framework (F56): each tool
 * call the framework is about to run is decided by Interlock's full pipeline as a thread of
 * a decide-only workflow — audited, shown in the web inbox, the chat and `interlock pending`,
 * waiting durably. A pause stores the framework's state beside its calls, and the gate's
 * continuation takes the agent on in whichever process of the gate sees the last answer.
 *
 * @example
 * const gate = await createApprovalGate({
 *   name: 'my-agent',
 *   store: { type: 'sqlite', path: '.interlock/interlock.db' },
 *   tools: { read_file: { category: 'read', riskLevel: 'LOW' }, bash: { category: 'command', riskLevel: 'HIGH', commandArgument: 'command' } },
 *   continuation: async (pause) => resumeMyAgent(pause.state, pause.decisions),
 * });
 * const outcome = await gate.decide([{ toolCallId: 'c1', toolName: 'bash', arguments: { command: 'make deploy' } }], { state: () => saved });
 */
export class ApprovalGate {
  private readonly ids: GateWorkflowIds;
  private readonly held = new Set<string>();
  /** Held questions the handler is holding now: settles one as cancelled when its agent stops waiting. */
  private readonly holding = new Map<string, (reason: string) => void>();
  /** Held decisions whose agent stopped waiting: a question they ask later is cancelled at once. */
  private readonly abandoned = new Map<string, string>();
  private readonly settling = new Map<string, Promise<void>>();
  private subscription: Subscription | undefined;
  /** Decision threads seen waiting for a person: looked at until they end (see watch). */
  private readonly watching = new Set<string>();
  private watchTimer: ReturnType<typeof setInterval> | undefined;
  private watchRun: Promise<void> | undefined;
  private closed = false;

  constructor(
    /** The gate's Interlock: read its audit, list what waits, answer from it. */
    readonly interlock: Interlock,
    readonly name: string,
    private readonly channel: string,
    private readonly toolbox: GateToolbox,
    private readonly continuation: GateContinuation | undefined,
    private readonly onError: (error: unknown) => void,
    private readonly stopWorker: (() => Promise<void>) | undefined,
  ) {
    this.ids = gateWorkflowIds(name);
  }

  /** @internal Starts following thread ends and picks up pauses left behind. */
  async begin(watchMs = 2_000): Promise<void> {
    this.subscription = this.interlock.events$.subscribe((event) => {
      if (!ENDED.has(event.type)) return;
      void this.onThreadEnded(event.threadId).catch(this.onError);
    });
    if (this.continuation === undefined) return;
    if (watchMs > 0) {
      this.watchTimer = setInterval(() => {
        this.watchRun ??= this.watch()
          .catch(this.onError)
          .finally(() => (this.watchRun = undefined));
      }, watchMs);
      this.watchTimer.unref();
    }
    // Pauses whose last decision ended in a process that died before it continued them.
    for (const pause of await this.interlock.threads({ status: 'completed' })) {
      if (pause.workflowId === this.ids.pause) await this.settle(pause.threadId).catch(this.onError);
    }
  }

  /** The handler of the gate's channel: holds the questions of a `decide` that waits, leaves the others to wait durably. */
  handler(): IUserInteractionHandler {
    return {
      handle: (request, context) =>
        new Promise((resolve) => {
          const { threadId } = request;
          const gaveUp = this.abandoned.get(threadId);
          if (gaveUp !== undefined) {
            resolve({ outcome: 'cancelled', reason: gaveUp });
            return;
          }
          if (!this.held.has(threadId) || context.signal.aborted) {
            resolve({ outcome: 'deferred' });
            return;
          }
          // Cancelled here, the question fails as `cancelled` and the decision thread audits it (`interaction:cancelled`).
          this.holding.set(threadId, (reason) => {
            this.holding.delete(threadId);
            resolve({ outcome: 'cancelled', reason });
          });
          context.signal.addEventListener(
            'abort',
            () => {
              this.holding.delete(threadId);
              resolve({ outcome: 'deferred' });
            },
            { once: true },
          );
        }),
    };
  }

  /**
   * Decides the calls an agent is about to make, together (F44): each is a thread of the
   * gate's decision workflow. Calls a rule decides are decided at once; a call that needs a
   * person waits in the inbox. With `state`, `decide` returns `paused` at once and the
   * continuation takes the agent on later; without it, `decide` waits for the answers.
   * Every call is a decision of its own, even two with one id (F62): `decisions[i]` is
   * `calls[i]`'s, bound to its tool, arguments and the tool's definition.
   */
  async decide(calls: readonly GateCall[], options: GateDecideOptions = {}): Promise<GateOutcome> {
    if (this.closed) throw new InterlockError('INVALID_OPTIONS', `the approval gate "${this.name}" is closed`);
    if (options.state !== undefined && this.continuation === undefined) {
      throw new InterlockError(
        'INVALID_OPTIONS',
        `the approval gate "${this.name}" has no continuation: give createApprovalGate({ continuation }) to pause an agent`,
      );
    }
    const pauseId = randomUUID();
    const durable = options.state !== undefined || options.detach === true;
    const threadIds = calls.map((call) => call.threadId ?? randomUUID());
    if (!durable) for (const threadId of threadIds) this.held.add(threadId);
    const onAbort = () => {
      for (const threadId of threadIds) {
        if (durable) {
          void this.interlock.cancel(threadId, STOPPED_WAITING).catch(() => undefined);
          continue;
        }
        // A held question is cancelled through the handler holding it, so the cancellation is audited.
        this.abandoned.set(threadId, STOPPED_WAITING);
        this.holding.get(threadId)?.(STOPPED_WAITING);
      }
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const handles = await Promise.all(
        calls.map((call, index) =>
          this.interlock.start(this.ids.decision, {
            threadId: threadIds[index] as string,
            channel: this.channel,
            input: {
              toolName: call.toolName,
              toolInput: call.arguments,
              toolCallId: call.toolCallId,
              toolDefinitionHash: this.toolbox.definitionHash(call.toolName),
              pauseId,
            },
            ...(options.session === undefined ? {} : { session: options.session }),
          }),
        ),
      );
      if (options.signal?.aborted === true) onAbort();
      await Promise.all(handles.map((handle) => (durable ? handle.done() : this.untilEnded(handle.threadId))));
      const decisions = await this.readAll(threadIds);
      for (const decision of decisions) if (decision.status === 'pending') this.watching.add(decision.threadId);
      const decided = decisions.filter((decision): decision is GateDecision => decision.status !== 'pending');
      if (decided.length === decisions.length) return { status: 'decided', decisions: decided };
      if (options.state === undefined) return { status: 'pending', decisions };
      const state = await options.state();
      const record = await this.interlock.start(this.ids.pause, {
        threadId: pauseId,
        channel: this.channel,
        input: { state, decisionThreadIds: threadIds },
        ...(options.session === undefined ? {} : { session: options.session }),
      });
      await record.done();
      // A decision may have ended before the pause was stored: then nobody continued it yet.
      await this.settle(pauseId);
      return { status: 'paused', pauseId, decisions: await this.readAll(threadIds) };
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      for (const threadId of threadIds) {
        this.held.delete(threadId);
        this.abandoned.delete(threadId);
      }
    }
  }

  /**
   * The decisions of the calls whose decision threads are `threadIds` (unknown ids are
   * left out); with `wait`, once every one of them is final (or `signal` is aborted).
   */
  async decisions(
    threadIds: readonly string[],
    options: { wait?: boolean; signal?: AbortSignal } = {},
  ): Promise<(GateDecision | GatePending)[]> {
    if (options.wait === true) {
      for (const threadId of threadIds) {
        for (;;) {
          const thread = await this.interlock.thread(threadId);
          if (thread === undefined || hasEnded(thread) || this.closed || options.signal?.aborted === true) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    }
    const known = [];
    for (const threadId of threadIds) if ((await this.interlock.thread(threadId)) !== undefined) known.push(threadId);
    return this.readAll(known);
  }

  /**
   * Whether `decision` is the decision of exactly `call` as proposed (F62): same tool, same
   * arguments, and the tool's definition unchanged. A framework that finds decisions again
   * (by a pause's order, or its own ids) checks each with it; a call that does not match is
   * decided afresh or refused, never run on another call's decision.
   */
  decidedExactly(decision: GateDecision | GatePending, call: Pick<GateCall, 'toolName' | 'arguments'>): boolean {
    return decidedExactly(decision, call, this.toolbox.definitionHash(call.toolName));
  }

  /** Whether `decision` lets `call` run as it stands: approved, with exactly these arguments (after any edit), tool and definition (F62). */
  letsRun(decision: GateDecision | GatePending, call: Pick<GateCall, 'toolName' | 'arguments'>): boolean {
    return letsRun(decision, call, this.toolbox.definitionHash(call.toolName));
  }

  /**
   * The approval receipt of `call`, which the framework is about to run on `decision` (F63):
   * signed now, kept with the decision's audit, for the tool to forward to its service
   * (`verifyReceipt` of `@interlock/receipts` checks it there). Undefined unless the decision
   * lets exactly this call run ({@link letsRun}), or when receipts are off.
   */
  async receipt(
    decision: GateDecision | GatePending,
    call: Pick<GateCall, 'toolName' | 'arguments'>,
  ): Promise<string | undefined> {
    if (!this.letsRun(decision, call)) return undefined;
    return gateReceipt(this.interlock, decision, call, this.toolbox.definitionHash(call.toolName));
  }

  /**
   * The JSON Schemas of the framework's tools, for tools whose policy gives none: an edit is
   * checked against them (answer-time, in every process). Give them before the first call of
   * each is decided; a tool decided about already keeps its definition.
   */
  describeTools(schemas: Readonly<Record<string, Record<string, unknown>>>): void {
    this.toolbox.describe(schemas);
  }

  /** A stored pause: the framework's state and the decisions of its calls so far. Undefined for an unknown id. */
  async pause(pauseId: string): Promise<GatePause | undefined> {
    const record = await this.interlock.thread(pauseId);
    if (record?.workflowId !== this.ids.pause) return undefined;
    const { sessionId, chatId } = record.session;
    return {
      pauseId,
      state: typeof record.variables['state'] === 'string' ? record.variables['state'] : '',
      session: chatId === undefined ? { sessionId } : { sessionId, chatId },
      decisions: await this.readAll(threadIdsOf(record.variables['decisionThreadIds'])),
    };
  }

  /** The outcome of a pause's continuation: undefined while it has not started. */
  async continued(pauseId: string): Promise<{ status: string; output?: unknown } | undefined> {
    const thread = await this.interlock.thread(continuationThreadId(pauseId));
    return thread === undefined ? undefined : { status: thread.status, output: thread.output };
  }

  /** Stops following decisions; a worker gate stops taking jobs. Pauses stay in the store for the next gate. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.subscription?.unsubscribe();
    if (this.watchTimer !== undefined) clearInterval(this.watchTimer);
    await this.watchRun;
    await Promise.allSettled([...this.settling.values()]);
    if (this.stopWorker !== undefined) await this.stopWorker();
    else await this.interlock.close();
  }

  /**
   * Decisions may end outside any gate (`interlock respond` runs the thread in its own
   * process): the questions of this gate's decisions are noted while they wait, and each
   * noted decision that has ended settles its pause.
   */
  private async watch(): Promise<void> {
    for (const request of await this.interlock.pending()) {
      if (request.workflowId === this.ids.decision) this.watching.add(request.threadId);
    }
    for (const threadId of [...this.watching]) {
      if (this.closed) return;
      const thread = await this.interlock.thread(threadId);
      if (thread !== undefined && !hasEnded(thread)) continue;
      this.watching.delete(threadId);
      if (thread !== undefined) await this.onThreadEnded(threadId);
    }
  }

  private async onThreadEnded(threadId: string): Promise<void> {
    if (this.closed) return;
    const thread = await this.interlock.thread(threadId);
    if (thread?.workflowId !== this.ids.decision) return;
    const pauseId = thread.variables['pauseId'];
    if (typeof pauseId === 'string') await this.settle(pauseId);
  }

  /** Continues a pause once every decision is in, unless some process did already (one continuation thread per pause). */
  private settle(pauseId: string): Promise<void> {
    const running = this.settling.get(pauseId);
    if (running !== undefined) return running.then(() => this.settle(pauseId));
    const settled = this.trySettle(pauseId).finally(() => this.settling.delete(pauseId));
    this.settling.set(pauseId, settled);
    return settled;
  }

  private async trySettle(pauseId: string): Promise<void> {
    if (this.continuation === undefined || this.closed) return;
    const record = await this.interlock.thread(pauseId);
    if (record?.workflowId !== this.ids.pause) return;
    const threads = await Promise.all(
      threadIdsOf(record.variables['decisionThreadIds']).map((threadId) => this.interlock.thread(threadId)),
    );
    if (!threads.every(hasEnded)) return;
    const threadId = continuationThreadId(pauseId);
    if ((await this.interlock.thread(threadId)) !== undefined) return;
    let handle;
    try {
      handle = await this.interlock.start(this.ids.continuation, {
        threadId,
        channel: this.channel,
        input: { pauseId },
        session: { sessionId: record.session.sessionId, parentThreadId: pauseId },
      });
    } catch (error) {
      // Another process started it first: it continues the agent.
      if ((await this.interlock.thread(threadId)) !== undefined) return;
      throw error;
    }
    await handle.done();
  }

  /** Follows a held decision until it ends (answered here or in another process, or cancelled). */
  private async untilEnded(threadId: string): Promise<void> {
    for (;;) {
      const thread = await this.interlock.thread(threadId);
      if (thread === undefined || hasEnded(thread) || this.closed) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async readAll(threadIds: readonly string[]): Promise<(GateDecision | GatePending)[]> {
    return Promise.all(
      threadIds.map(async (threadId) => {
        const thread = await this.interlock.thread(threadId);
        if (thread === undefined) throw new InterlockError('THREAD_NOT_FOUND', `no decision thread ${threadId}`);
        return readDecision(this.interlock, thread);
      }),
    );
  }
}

/** The id of a pause's continuation thread. */
export function continuationThreadId(pauseId: string): string {
  return `${pauseId}.continue`;
}

function threadIdsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
