import { createInterlock, type Interlock, type ModelProvider } from '@interlock/core';
import type { IUserInteractionHandler } from '@interlock/sdk-types';

/** The channel of every thread the CLI starts; its handler is the terminal. */
export const CLI_CHANNEL = 'cli';

/** What the CLI plugs into the engine. */
export interface CliInterlockOptions {
  /** The model LLM nodes call as `default`. */
  model?: ModelProvider;
  /** Answers the questions of threads on the `cli` channel. */
  handler?: IUserInteractionHandler;
}

/**
 * Builds the CLI's Interlock. Runs are kept in memory: the SQLite store is not built yet,
 * so a thread left waiting ends with the process.
 *
 * @example
 * const interlock = await createCliInterlock({ model: createDemoModel(), handler: new TerminalUserInteractionHandler() });
 * const thread = await interlock.start(await interlock.loadWorkflow(path), { channel: CLI_CHANNEL });
 */
export function createCliInterlock(options: CliInterlockOptions = {}): Promise<Interlock> {
  return createInterlock({
    store: { type: 'memory' },
    models: options.model === undefined ? {} : { default: options.model },
    handlers: options.handler === undefined ? {} : { [CLI_CHANNEL]: options.handler },
  });
}
