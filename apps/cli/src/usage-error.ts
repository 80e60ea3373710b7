/**
 * A mistake on the command line (unknown command, bad option, undeclared input).
 * `main` prints its message with a pointer to the help and exits with code 2.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';

  /**
   * @param message - what is wrong and how to fix it.
   * @param helpCommand - the command whose `--help` explains the right usage, e.g. `run`.
   */
  constructor(
    message: string,
    readonly helpCommand?: string,
  ) {
    super(message);
  }
}
