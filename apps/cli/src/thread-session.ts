import type { ApprovalMode, Interlock, ModelProvider, ThreadHandle, ThreadOutcome } from '@interlock/core';
import type { InterlockEvent, UserInteractionRequest } from '@interlock/sdk-types';
import type { Telemetry } from '@interlock/telemetry';
import { createCliInterlock } from './composition-root.js';
import { projectConfig } from './project-config-option.js';
import { startProjectTelemetry } from './project-telemetry.js';
import type { AuditSummary, EventPrinter } from './event-printer.js';
import { ExitCode, exitCodeOf } from './exit-code.js';
import { RunStopper } from './run-stopper.js';
import type { StoreChoice } from './store-option.js';
import { TerminalUserInteractionHandler } from './terminal-user-interaction-handler.js';

/** How a {@link ThreadSession} is set up. */
export interface ThreadSessionOptions {
  store: StoreChoice;
  model: ModelProvider;
  mode: ApprovalMode;
  /** Default: the current directory. */
  workspaceRoot?: string;
  /** The channels whose questions are asked in this terminal; none means they wait in the store. */
  answerOn: readonly string[];
  /** Under `--json` questions are drawn on standard error, so standard output stays JSON. */
  json: boolean;
  /** How the advice for piped input names the command, e.g. `interlock demo`. */
  commandLine: string;
  /** Time out overdue interactions when the store opens (see `CliInterlockOptions`). Default true. */
  recoverOnStart?: boolean;
  /** The project file's MCP servers to start (see `CliInterlockOptions`). Default all. */
  mcpServers?: boolean;
  /** `workers-only`: answer as a deployment's answerer; live workers take the threads forward. */
  continueIn?: 'workers-only';
}

/** How following a thread in this process ended. */
export interface FollowResult {
  outcome: ThreadOutcome;
  /** The person pressed Ctrl+C (the thread is left waiting unless it had already ended). */
  interrupted: boolean;
  /** The tool of the call Ctrl+C rejected, if any. */
  rejectedCall: string | undefined;
  /** The thread's tool-call decisions in the audit trail; undefined when it could not be read. */
  audit: AuditSummary | undefined;
  exitCode: ExitCode;
}

/** After Ctrl+C has stopped the run, these events only report the engine winding down. */
const WINDING_DOWN = new Set<InterlockEvent['type']>([
  'LLM_CALL_STARTED',
  'LLM_TEXT_DELTA',
  'LLM_CALL_COMPLETED',
  'LLM_CALL_FAILED',
  'NODE_STARTED',
  'NODE_FAILED',
]);

/**
 * One process's Interlock for taking threads forward: the store of `--store`, the model,
 * the mode, the workspace, and the terminal handler on the channels it should answer.
 * `follow` prints a thread's events as they happen and turns Ctrl+C into a clean stop that
 * leaves the thread resumable; `close` releases the store and standard input.
 *
 * @example
 * const session = await ThreadSession.open({ store, model, mode: 'default', answerOn: [CLI_CHANNEL], json: false, commandLine: 'interlock resume' });
 * try {
 *   const result = await session.follow(await session.interlock.resume(threadId), printer);
 * } finally {
 *   await session.close();
 * }
 */
export class ThreadSession {
  private closing: Promise<void> | undefined;

  private constructor(
    /** The engine, on the chosen store. */
    readonly interlock: Interlock,
    private readonly handler: TerminalUserInteractionHandler,
    private readonly stopper: RunStopper,
    /** The project file's `[telemetry]`, when it has one: flushed when the session closes. */
    private readonly telemetry: Telemetry | undefined,
  ) {
    // A failed close is reported to whoever awaits close() (the command's finally).
    stopper.onStop(() => void this.close().catch(() => undefined));
  }

  /** Opens the store and builds the Interlock. */
  static async open(options: ThreadSessionOptions): Promise<ThreadSession> {
    const stopper = new RunStopper();
    // The handler checks answers with the Interlock it is built into: bound once that exists.
    const built: { interlock?: Interlock } = {};
    const handler = new TerminalUserInteractionHandler({
      output: options.json ? process.stderr : process.stdout,
      errorOutput: process.stderr,
      checkResponse: (interactionId, response) =>
        built.interlock === undefined
          ? Promise.resolve({ ok: true })
          : built.interlock.checkResponse(interactionId, response),
      onApprovalInterrupted: (request: UserInteractionRequest) => stopper.stopAfterAnswer(request),
      commandLine: options.commandLine,
    });
    // [telemetry] (F59): this process's spans join the trace the thread carries, as a worker's do.
    const telemetry = await startProjectTelemetry(projectConfig()?.config.telemetry, 'interlock-cli');
    const interlock = await createCliInterlock({
      store: options.store.options,
      model: options.model,
      mode: options.mode,
      handler,
      handlerChannels: options.answerOn,
      ...(options.workspaceRoot === undefined ? {} : { workspaceRoot: options.workspaceRoot }),
      ...(options.recoverOnStart === undefined ? {} : { recoverOnStart: options.recoverOnStart }),
      ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
      ...(options.continueIn === undefined ? {} : { continueIn: options.continueIn }),
    }).catch(async (error: unknown) => {
      await telemetry?.shutdown();
      throw error;
    });
    built.interlock = interlock;
    return new ThreadSession(interlock, handler, stopper, telemetry);
  }

  /** Asks the questions of threads on `channel` in this terminal too (e.g. the channel of a thread another app started). */
  answerOn(channel: string): void {
    this.interlock.setHandler(channel, this.handler);
  }

  /**
   * Prints the thread's events (through `printer`, when given) until it completes, fails,
   * is cancelled or waits; the first Ctrl+C stops the run and leaves the thread resumable,
   * a second one exits at once.
   */
  async follow(thread: ThreadHandle, printer?: EventPrinter): Promise<FollowResult> {
    let interruptedBySignal = false;
    const interrupted = (): boolean => interruptedBySignal || this.handler.wasInterrupted(thread.threadId);
    let steps = 0;
    const subscription = thread.events$.subscribe((event) => {
      if (event.type === 'NODE_STARTED') steps += 1;
      this.stopper.observe(event);
      if (!(this.stopper.stopped && WINDING_DOWN.has(event.type))) printer?.printEvent(event);
    });
    const onInterrupt = (): void => {
      if (interruptedBySignal) process.exit(ExitCode.interrupted);
      interruptedBySignal = true;
      printer?.breakLine();
      void this.close().catch(() => undefined);
    };
    process.on('SIGINT', onInterrupt);
    try {
      const outcome = await thread.done();
      const audit = await this.auditSummary(thread.threadId);
      printer?.printOutcome(outcome, {
        steps,
        interrupted: interrupted(),
        ...(audit === undefined || audit.entries === 0 ? {} : { audit }),
      });
      return {
        outcome,
        interrupted: interrupted(),
        rejectedCall: this.stopper.rejectedCall,
        audit,
        exitCode: exitCodeOf(outcome, interrupted()),
      };
    } finally {
      subscription.unsubscribe();
      process.off('SIGINT', onInterrupt);
    }
  }

  /** What waits for a person in this thread, read from the store (before `close`). */
  async pendingOf(threadId: string): Promise<UserInteractionRequest[]> {
    if (this.closing !== undefined) return [];
    const pending = await this.interlock.pending();
    return pending.filter((request) => request.threadId === threadId);
  }

  /** Stops this process's runs (threads stay resumable in the store), closes the store and stops reading standard input. */
  close(): Promise<void> {
    this.closing ??= Promise.resolve().then(async () => {
      this.handler.close();
      try {
        await this.interlock.close();
      } finally {
        await this.telemetry?.shutdown();
      }
    });
    return this.closing;
  }

  /** The thread's decisions in the audit trail; undefined once Ctrl+C has closed the store. */
  private async auditSummary(threadId: string): Promise<AuditSummary | undefined> {
    if (this.closing !== undefined) return undefined;
    try {
      const entries = await this.interlock.audit({ threadId });
      const allowed = entries.filter((entry) => entry.outcome === 'allow').length;
      const verification = await this.interlock.verifyAudit();
      return { entries: entries.length, allowed, denied: entries.length - allowed, chainValid: verification.valid };
    } catch {
      return undefined;
    }
  }
}
