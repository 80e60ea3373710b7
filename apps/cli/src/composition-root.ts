import {
  agentTool,
  builtinTools,
  createInterlock,
  type ApprovalMode,
  type Interlock,
  type ModelProvider,
  type ShellClassifierPort,
  type StoreOptions,
  type Tool,
} from '@interlock/core';
import type { IUserInteractionHandler } from '@interlock/sdk-types';
import { projectConfig } from './project-config-option.js';

/** The channel of every thread `interlock run` and `interlock demo` start; its handler is the terminal. */
export const CLI_CHANNEL = 'cli';

/**
 * The channel of threads started with `interlock run --detach`: no process answers it, so
 * its questions wait in the store for `interlock respond` (or `interlock resume`).
 */
export const DETACHED_CHANNEL = 'detached';

/**
 * The shell rules of a command that only reads the store (threads, pending, audit): it runs
 * no tool, so the bash grammar is never loaded (compiling it kept each such command alive
 * about 0.7 s longer). Were it ever asked, it would say a person decides.
 */
const SHELL_NOT_ANALYSED: ShellClassifierPort = {
  classify: () => ({
    verdict: 'ask',
    rule: 'shell:not-analysed',
    reasons: ['this command only reads the store and does not analyse shell commands'],
    programs: [],
    analysed: false,
  }),
};

/** What the CLI plugs into the engine. */
export interface CliInterlockOptions {
  /** For commands that only read the store (threads, pending, audit): the project file's MCP servers are not started. */
  readsOnly?: boolean;
  /**
   * The project file's MCP servers to start: all (the default), none (`validate`), or those
   * named (`explain` of one server's tool). Reading a configuration starts nothing (issue 24).
   */
  mcpServers?: boolean | readonly string[];
  /** Where threads are kept (`--store`). Default: memory (for commands that keep nothing). */
  store?: StoreOptions;
  /** The model LLM nodes call as `default`. */
  model?: ModelProvider;
  /** Answers the questions of threads on the `handlerChannels`. */
  handler?: IUserInteractionHandler;
  /** The channels `handler` answers. Default: `cli` only. */
  handlerChannels?: readonly string[];
  /** How tool calls are decided (`--mode`). Default `default`. */
  mode?: ApprovalMode;
  /** The directory the file and shell tools are confined to (`--workspace`). Default: the current directory. */
  workspaceRoot?: string;
  /**
   * Time out, when the store opens, the interactions whose deadline passed while no process
   * ran. Default true; `interlock respond` turns it off so that answering such an
   * interaction is reported as expired rather than as already answered.
   */
  recoverOnStart?: boolean;
  /**
   * `workers-only`: an answerer of a deployment, like the web inbox: answers are stored with
   * the job that hands their thread to a live worker serving its version; no thread runs here.
   */
  continueIn?: 'workers-only';
  /**
   * Names of tools a team's service registers (`interlock validate --tool`): known by name, so
   * a workflow naming them validates; decided about as tools of unknown kind, never run here.
   */
  serviceTools?: readonly string[];
}

/**
 * Builds the CLI's Interlock with the built-in tools (read_file, list_dir, write_file,
 * edit_file, bash, http_fetch, ask_user) on the store of `--store`.
 *
 * @example
 * const interlock = await createCliInterlock({ store: { type: 'sqlite' }, model: createDemoModel(), handler: new TerminalUserInteractionHandler() });
 * const thread = await interlock.start(await interlock.loadWorkflow(path), { channel: CLI_CHANNEL });
 */
export function createCliInterlock(options: CliInterlockOptions = {}): Promise<Interlock> {
  const { handler } = options;
  const channels = options.handlerChannels ?? [CLI_CHANNEL];
  const project = projectConfig();
  return createInterlock({
    // The project file's approval rules, tools and workspace; the flags are a later layer.
    ...(project === undefined ? {} : { config: project }),
    store: options.store ?? { type: 'memory' },
    models: options.model === undefined ? {} : { default: options.model },
    handlers: handler === undefined ? {} : Object.fromEntries(channels.map((channel) => [channel, handler])),
    // With a project file, its [tools] builtins (all of them unless it lists some), as core reads it.
    ...(project === undefined ? { tools: builtinTools } : {}),
    approval: { mode: options.mode ?? project?.config.approval?.mode ?? 'default' },
    ...(options.workspaceRoot === undefined ? {} : { workspaceRoot: options.workspaceRoot }),
    ...(options.recoverOnStart === undefined ? {} : { recoverOnStart: options.recoverOnStart }),
    ...(options.mcpServers === undefined ? {} : { connectMcp: options.mcpServers }),
    ...(options.continueIn === undefined ? {} : { continueIn: options.continueIn }),
    ...(options.serviceTools === undefined || options.serviceTools.length === 0
      ? {}
      : { toolFallback: serviceToolsNamed(options.serviceTools, options.workspaceRoot ?? process.cwd()) }),
    ...(options.readsOnly === true ? { connectMcp: false, shellClassifier: SHELL_NOT_ANALYSED } : {}),
  });
}

/** Stand-ins for tools only a service holds: known by name (a person decides about them), never run by the CLI. */
function serviceToolsNamed(names: readonly string[], workspaceRoot: string): (name: string) => Tool | undefined {
  return (name) => (names.includes(name) ? agentTool(name, workspaceRoot, {}) : undefined);
}
