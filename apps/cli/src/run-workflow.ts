import { resolve } from 'node:path';
import {
  InterlockError,
  resolveFromConfig,
  type ApprovalMode,
  type Interlock,
  type ModelProvider,
  type ThreadHandle,
  type ThreadOutcome,
} from '@interlock/core';
import { projectConfig } from './project-config-option.js';
import type { WorkflowDefinition } from '@interlock/sdk-types';
import { CLI_CHANNEL } from './composition-root.js';
import { describeLoadError } from './describe-load-error.js';
import { createEventPrinter } from './create-event-printer.js';
import { ExitCode, exitCodeOf } from './exit-code.js';
import { reportOutcome } from './outcome-report.js';
import type { StoreChoice } from './store-option.js';
import { colourWanted, createTerminalStyle } from './terminal-style.js';
import { PROJECT_MODEL, ThreadNotes } from './thread-notes.js';
import { ThreadSession } from './thread-session.js';
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
  /** `--model` and `--base-url` as given, kept with the thread so another process can continue it with the same model. */
  /** `--model` and `--base-url` as given (no `model`: the project file's, else the demo model). */
  modelSpec: { model?: string; baseUrl?: string };
  /** Where the thread is kept (`--store`). */
  store: StoreChoice;
  /**
   * The channel the thread runs on (`--channel`; `--detach` is `detached`). On `cli`, the
   * default, this terminal asks; on any other, nobody answers in this process: the command
   * prints the thread's id and exits as soon as it waits for a person.
   */
  channel?: string;
  /** How tool calls are decided. Default `default`. */
  mode?: ApprovalMode;
  /** The directory the file and shell tools are confined to. Default: the current directory. */
  workspaceRoot?: string;
  /** The command whose help explains a usage error, e.g. `run`. */
  command: string;
  /** The command line to show in advice for piped answers, e.g. `interlock demo coding-agent`. */
  commandLine?: string;
}

/** The one line `interlock run --detach --json` prints. */
export interface DetachedJson {
  threadId: string;
  status: ThreadOutcome['status'];
  pendingInteractionIds: string[];
  /** Why a thread that failed failed, as `interlock threads --json` says it. */
  error?: { code: string; message: string };
}

/**
 * Runs one workflow in this process: loads it, starts a thread on the `cli` channel, prints
 * its events, asks its questions in the terminal, and returns the exit code for the outcome.
 * The thread is kept in the `--store` store, so one left waiting (Ctrl+C, or standard input
 * ran out) can be answered from another process. With `detach`, the thread runs on the
 * `detached` channel, which nobody answers: the command returns as soon as it waits.
 * Ctrl+C outside a prompt stops the run and leaves the thread waiting, like Ctrl+C at a
 * question; Ctrl+C at a tool approval rejects that call, then stops the run the same way.
 *
 * @throws UsageError when the input names a variable the workflow does not declare.
 */
export async function runWorkflow(options: RunWorkflowOptions): Promise<ExitCode> {
  const mode = options.mode ?? 'default';
  const channel = options.channel ?? CLI_CHANNEL;
  const detached = channel !== CLI_CHANNEL;
  const project = projectConfig();
  const projectWorkspace =
    project?.config.tools?.workspace === undefined
      ? undefined
      : resolveFromConfig(project, project.config.tools.workspace);
  const workspaceRoot = resolve(options.workspaceRoot ?? projectWorkspace ?? process.cwd());
  const session = await ThreadSession.open({
    store: options.store,
    model: options.model,
    mode,
    workspaceRoot,
    answerOn: detached ? [] : [CLI_CHANNEL],
    json: options.json,
    commandLine: options.commandLine ?? `interlock ${options.command} ${options.workflowPath}`,
  });
  try {
    let workflow: WorkflowDefinition;
    try {
      workflow = await session.interlock.loadWorkflow(options.workflowPath);
    } catch (error) {
      process.stderr.write(
        `${createTerminalStyle(colourWanted(process.stderr)).red(describeLoadError(options.workflowPath, error))}\n`,
      );
      return ExitCode.failed;
    }
    const thread = await startThread(session.interlock, workflow, options, channel);
    await new ThreadNotes(options.store.notesDirectory).remember(thread.threadId, {
      workflowPath: resolve(options.workflowPath),
      workspaceRoot,
      mode,
      model: options.modelSpec.model ?? PROJECT_MODEL,
      ...(options.modelSpec.baseUrl === undefined ? {} : { baseUrl: options.modelSpec.baseUrl }),
    });
    if (detached && options.json) return await followDetachedJson(session, thread);
    const result = await session.follow(thread, createEventPrinter(options.json));
    await reportOutcome(session, result, options);
    return result.exitCode;
  } finally {
    await session.close();
  }
}

/** `--detach --json`: no events, one line saying where the thread stands. */
async function followDetachedJson(session: ThreadSession, thread: ThreadHandle): Promise<ExitCode> {
  const { outcome, interrupted } = await session.follow(thread);
  const line: DetachedJson = {
    threadId: outcome.threadId,
    status: outcome.status,
    pendingInteractionIds: outcome.status === 'waiting' ? outcome.pendingInteractionIds : [],
    ...(outcome.status === 'failed' ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return exitCodeOf(outcome, interrupted);
}

async function startThread(
  interlock: Interlock,
  workflow: WorkflowDefinition,
  options: RunWorkflowOptions,
  channel: string,
): Promise<ThreadHandle> {
  try {
    return await interlock.start(workflow, { input: options.input, channel });
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
