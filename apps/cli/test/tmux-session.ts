import { TmuxTerminal } from '@interlock/core/testing';
import { TEST_STORE_ENVIRONMENT } from './test-store.js';

export { assertTmux, TmuxTerminal } from '@interlock/core/testing';

/**
 * Starts `command` (a shell command line) in a real terminal in `directory`, with
 * `environment` set (default: the test file's own store).
 */
export function startTerminal(
  command: string,
  directory: string,
  environment: Readonly<Record<string, string>> = TEST_STORE_ENVIRONMENT,
): Promise<TmuxTerminal> {
  return TmuxTerminal.start(command, directory, environment);
}
