import { UsageError } from '../usage-error.js';

/**
 * Runs a `node:util` parseArgs call for one command and turns its errors (unknown option,
 * missing value) into a {@link UsageError} that points at the command's help.
 *
 * @example
 * const { values } = withUsageErrors('run', () => parseArgs({ args, options, allowPositionals: true }));
 */
export function withUsageErrors<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`interlock ${command}: ${message}`, command);
  }
}
