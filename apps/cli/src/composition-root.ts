import { builtinTools, createInterlock, type ApprovalMode, type Interlock, type ModelProvider } from '@interlock/core';
import type { IUserInteractionHandler } from '@interlock/sdk-types';

/** The channel of every thread the CLI starts; its handler is the terminal. */
export const CLI_CHANNEL = 'cli';

/** What the CLI plugs into the engine. */
export interface CliInterlockOptions {
  /** The model LLM nodes call as `default`. */
  model?: ModelProvider;
  /** Answers the questions of threads on the `cli` channel. */
  handler?: IUserInteractionHandler;
  /** How tool calls are decided (`--mode`). Default `default`. */
  mode?: ApprovalMode;
  /** The directory the file and shell tools are confined to (`--workspace`). Default: the current directory. */
  workspaceRoot?: string;
}

/**
 * Builds the CLI's Interlock with the built-in tools (read_file, list_dir, write_file,
 * edit_file, bash, http_fetch, ask_user). Runs are kept in memory: the SQLite store is
 * not built yet, so a thread left waiting ends with the process.
 *
 * @example
 * const interlock = await createCliInterlock({ model: createDemoModel(), handler: new TerminalUserInteractionHandler(), mode: 'autoEdit' });
 * const thread = await interlock.start(await interlock.loadWorkflow(path), { channel: CLI_CHANNEL });
 */
export function createCliInterlock(options: CliInterlockOptions = {}): Promise<Interlock> {
  return createInterlock({
    store: { type: 'memory' },
    models: options.model === undefined ? {} : { default: options.model },
    handlers: options.handler === undefined ? {} : { [CLI_CHANNEL]: options.handler },
    tools: builtinTools,
    approval: { mode: options.mode ?? 'default' },
    ...(options.workspaceRoot === undefined ? {} : { workspaceRoot: options.workspaceRoot }),
  });
}
