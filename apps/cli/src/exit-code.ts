import type { ThreadOutcome } from '@interlock/core';

/**
 * The exit codes of `interlock`, documented in every `--help`.
 * Scripts can tell a finished run from one that still waits for a person.
 */
export const ExitCode = {
  /** The thread completed. */
  completed: 0,
  /** The thread failed, the workflow file is invalid or unreadable, or an answer was refused. */
  failed: 1,
  /** The command line is wrong: unknown command, option, store or input variable. */
  usage: 2,
  /** The thread is left waiting for an answer nobody gave (or handed to a worker, not finished here). */
  waiting: 3,
  /** `interlock respond`: the interaction had already been answered; nothing changed. */
  alreadyAnswered: 4,
  /** `interlock respond`: the interaction's deadline had passed; the answer was refused and nothing ran. */
  expired: 5,
  /** `interlock respond`: the store failed during the commit: the answer may or may not be stored. */
  outcomeUnknown: 6,
  /** The run was interrupted (Ctrl+C; at a tool approval that call is rejected) or the thread was cancelled. */
  interrupted: 130,
} as const;

/** One of the values of {@link ExitCode}. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code for how a run ended.
 *
 * @param outcome - what `thread.done()` resolved to.
 * @param interrupted - true when the person pressed Ctrl+C during the run: 130 unless it failed.
 */
export function exitCodeOf(outcome: ThreadOutcome, interrupted: boolean): ExitCode {
  if (interrupted && outcome.status !== 'failed') return ExitCode.interrupted;
  switch (outcome.status) {
    case 'completed':
      return ExitCode.completed;
    case 'failed':
      return ExitCode.failed;
    case 'cancelled':
      return ExitCode.interrupted;
    case 'waiting':
    case 'scheduled':
      return ExitCode.waiting;
  }
}
