import { InterlockError, type Interlock, type ModelProvider, type ThreadHandle, type ThreadOutcome } from '@interlock/core';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import { CLI_CHANNEL, createCliInterlock } from './composition-root.js';
import { describeLoadError } from './describe-load-error.js';
import { ReadableEventPrinter, type EventPrinter } from './event-printer.js';
import { ExitCode, exitCodeOf } from './exit-code.js';
import { JsonEventPrinter } from './json-event-printer.js';
import { colourWanted, createTerminalStyle, type TerminalStyle } from './terminal-style.js';
import { TerminalUserInteractionHandler } from './terminal-user-interaction-handler.js';
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
  /** The command whose help explains a usage error, e.g. `run`. */
  command: string;
}

const IN_MEMORY_NOTE = 'Runs are kept in memory for now (no SQLite store yet), so it ends with this process.';

/**
 * Runs one workflow in this process: loads it, starts a thread on the `cli` channel, prints
 * its events, asks its questions in the terminal, and returns the exit code for the outcome.
 * Ctrl+C outside a prompt stops the run and leaves the thread waiting, like Ctrl+C at a prompt.
 *
 * @throws UsageError when the input names a variable the workflow does not declare.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<ExitCode> {
  const errorStyle = createTerminalStyle(colourWanted(process.stderr));
  const handler = new TerminalUserInteractionHandler({
    // Under --json, standard output carries JSON only.
    output: options.json ? process.stderr : process.stdout,
    errorOutput: process.stderr,
  });
  const interlock = await createCliInterlock({ model: options.model, handler });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= interlock.close());
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
      printer.printEvent(event);
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
      printer.printOutcome(outcome, { steps, interrupted: interrupted() });
      reportWaiting(outcome, interrupted(), errorStyle);
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

function reportWaiting(outcome: ThreadOutcome, interrupted: boolean, style: TerminalStyle): void {
  if (outcome.status !== 'waiting') return;
  const message = interrupted
    ? `Interrupted: the thread is left waiting (thread ${outcome.threadId}).`
    : `The thread is left waiting for an answer (thread ${outcome.threadId}).`;
  process.stderr.write(`${style.yellow(message)}\n${style.dim(IN_MEMORY_NOTE)}\n`);
}
