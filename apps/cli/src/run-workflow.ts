import {
  InterlockError,
  type ApprovalMode,
  type Interlock,
  type ModelProvider,
  type ThreadHandle,
  type ThreadOutcome,
} from '@interlock/core';
import type { InterlockEvent, WorkflowDefinition } from '@interlock/sdk-types';
import { CLI_CHANNEL, createCliInterlock } from './composition-root.js';
import { describeLoadError } from './describe-load-error.js';
import { ReadableEventPrinter, type AuditSummary, type EventPrinter } from './event-printer.js';
import { ExitCode, exitCodeOf } from './exit-code.js';
import { JsonEventPrinter } from './json-event-printer.js';
import { colourWanted, createTerminalStyle, type TerminalStyle } from './terminal-style.js';
import { TerminalUserInteractionHandler } from './terminal-user-interaction-handler.js';
import { RunStopper } from './run-stopper.js';
import { UsageError } from './usage-error.js';

/** What to run and how to show it. */
export interface RunWorkflowOptions {
  /** A `.toml` or `.json` workflow file. */
  workflowPath: string;
  /** Initial values of declared thread variables. */
  input: Record<string, unknown>;
  /** Print JSON lines instead of text. */
  json: boolean;
  /** The model LLM nodes call. */
  model: ModelProvider;
  /** How tool calls are decided. Default `default`. */
  mode?: ApprovalMode;
  /** The directory the file and shell tools are confined to. Default: the current directory. */
  workspaceRoot?: string;
  /** The command whose help explains a usage error, e.g. `run`. */
  command: string;
  /** The command line to show in advice for piped answers, e.g. `interlock demo coding-agent`. */
  commandLine?: string;
}

const IN_MEMORY_NOTE = 'Runs are kept in memory for now (no SQLite store yet), so it ends with this process.';

/** After Ctrl+C has stopped the run, these events only report the engine winding down. */
const WINDING_DOWN = new Set<InterlockEvent['type']>(['LLM_CALL_STARTED', 'LLM_TEXT_DELTA', 'LLM_CALL_COMPLETED', 'LLM_CALL_FAILED', 'NODE_STARTED', 'NODE_FAILED']);

/**
 * Runs one workflow in this process: loads it, starts a thread on the `cli` channel, prints
 * its events, asks its questions in the terminal, and returns the exit code for the outcome.
 * Ctrl+C outside a prompt stops the run and leaves the thread waiting, like Ctrl+C at a
 * question; Ctrl+C at a tool approval rejects that call, then stops the run the same way.
 *
 * @throws UsageError when the input names a variable the workflow does not declare.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<ExitCode> {
  const errorStyle = createTerminalStyle(colourWanted(process.stderr));
  const stopper = new RunStopper();
  const handler = new TerminalUserInteractionHandler({
    // Under --json, standard output carries JSON only.
    output: options.json ? process.stderr : process.stdout,
    errorOutput: process.stderr,
    // Called only while the thread runs, so after `interlock` below exists.
    checkResponse: (interactionId, response) => interlock.checkResponse(interactionId, response),
    onApprovalInterrupted: (request) => stopper.stopAfterAnswer(request),
    commandLine: options.commandLine ?? `interlock ${options.command} ${options.workflowPath}`,
  });
  const interlock = await createCliInterlock({
    model: options.model,
    handler,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.workspaceRoot === undefined ? {} : { workspaceRoot: options.workspaceRoot }),
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= interlock.close());
  stopper.onStop(() => void close());
  try {
    let workflow: WorkflowDefinition;
    try {
      workflow = await interlock.loadWorkflow(options.workflowPath);
    } catch (error) {
      process.stderr.write(`${errorStyle.red(describeLoadError(options.workflowPath, error))}\n`);
      return ExitCode.failed;
    }
    const thread = await startThread(interlock, workflow, options);
    let interruptedBySignal = false;
    const interrupted = (): boolean => interruptedBySignal || handler.wasInterrupted(thread.threadId);
    const printer = createPrinter(options.json);
    let steps = 0;
    thread.events$.subscribe((event) => {
      if (event.type === 'NODE_STARTED') steps += 1;
      stopper.observe(event);
      if (!(stopper.stopped && WINDING_DOWN.has(event.type))) printer.printEvent(event);
    });

    const onInterrupt = (): void => {
      if (interruptedBySignal) process.exit(ExitCode.interrupted);
      interruptedBySignal = true;
      printer.breakLine();
      void close();
    };
    process.on('SIGINT', onInterrupt);
    try {
      const outcome = await thread.done();
      const audit = auditSummary(interlock, thread.threadId);
      printer.printOutcome(outcome, { steps, interrupted: interrupted(), ...(audit.entries === 0 ? {} : { audit }) });
      reportStop(outcome, interrupted(), stopper.rejectedCall, errorStyle);
      return exitCodeOf(outcome, interrupted());
    } finally {
      process.off('SIGINT', onInterrupt);
    }
  } finally {
    handler.close();
    await close();
  }
}

async function startThread(interlock: Interlock, workflow: WorkflowDefinition, options: RunWorkflowOptions): Promise<ThreadHandle> {
  try {
    return await interlock.start(workflow, { input: options.input, channel: CLI_CHANNEL });
  } catch (error) {
    if (InterlockError.is(error) && error.code === 'VARIABLE_UNDECLARED') {
      const declared = workflow.variables
        .filter((variable) => variable.scope === 'thread' || variable.scope === 'subgraph')
        .map((variable) => variable.name);
      const known = declared.length === 0 ? 'it declares none' : `declared: ${declared.join(', ')}`;
      throw new UsageError(`${error.message} (${known})`, options.command);
    }
    throw error;
  }
}

function createPrinter(json: boolean): EventPrinter {
  if (json) return new JsonEventPrinter(process.stdout);
  return new ReadableEventPrinter(process.stdout, createTerminalStyle(colourWanted(process.stdout)));
}

function auditSummary(interlock: Interlock, threadId: string): AuditSummary {
  const entries = interlock.audit({ threadId });
  const allowed = entries.filter((entry) => entry.outcome === 'allow').length;
  return { entries: entries.length, allowed, denied: entries.length - allowed, chainValid: interlock.verifyAudit().valid };
}

function reportStop(outcome: ThreadOutcome, interrupted: boolean, rejectedCall: string | undefined, style: TerminalStyle): void {
  const rejected = rejectedCall === undefined ? '' : `the ${rejectedCall} call was rejected and the run stopped; `;
  if (outcome.status === 'completed' && interrupted) {
    process.stderr.write(`${style.yellow(`Interrupted: ${rejected}the thread had already completed (thread ${outcome.threadId}).`)}\n`);
    return;
  }
  if (outcome.status !== 'waiting') return;
  const message = interrupted
    ? `Interrupted: ${rejected}the thread is left waiting (thread ${outcome.threadId}).`
    : `The thread is left waiting for an answer (thread ${outcome.threadId}).`;
  process.stderr.write(`${style.yellow(message)}\n${style.dim(IN_MEMORY_NOTE)}\n`);
}
