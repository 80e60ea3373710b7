import type { ThreadOutcome } from '@interlock/core';
import { ToolApprovalResponse } from '@interlock/sdk-types';
import { describeResponse } from './approval/describe-response.js';
import { makeVisible } from './approval/visible-text.js';
import { ExitCode } from './exit-code.js';
import type { RespondAnswer } from './respond-answer.js';
import { colourWanted, createTerminalStyle } from './terminal-style.js';

/** What `interlock respond` did, as `--json` prints it (one line). */
export interface RespondJson {
  /**
   * `accepted`: the answer was stored; `already_answered` and `expired`: it changed nothing;
   * `refused`: it was not valid (the question still waits); `not_stored`: the store failed
   * first; `unknown`: the commit was cut off, it may or may not be stored.
   */
  result: 'accepted' | 'already_answered' | 'expired' | 'refused' | 'not_stored' | 'unknown';
  interactionId: string;
  threadId?: string;
  /** What became of the thread after an accepted answer (see `Continuation` in @interlock/core). */
  continuation?: 'continued' | 'scheduled' | 'elsewhere' | 'stalled' | 'finished' | 'awaiting-approvals';
  /** Who answered first, and when (`already_answered`). */
  answeredBy?: string;
  answeredAt?: string;
  /** Where the thread stands after this process took it forward (or, `finished`, where it ended). */
  status?: ThreadOutcome['status'];
  /** What the thread waits for now (status `waiting`). */
  pendingInteractionIds?: string[];
  output?: unknown;
  error?: { code: string; message: string };
  /** Why the answer was refused. */
  message?: string;
  /** For a call that needs several approvers (F51): this approval is `given` of `required`; the call waits for the rest. */
  approvals?: { given: number; required: number };
  exitCode: ExitCode;
}

/** The answer in words: `approved`, `rejected: not today`, `answered "yes"`. */
export function describeAnswer(answer: RespondAnswer): string {
  const approval = ToolApprovalResponse.safeParse(answer.input);
  if (approval.success) return describeResponse(approval.data);
  return `answered ${makeVisible(JSON.stringify(answer.input))}`;
}

/** The `--json` line for a thread this process took forward after the answer. */
export function acceptedJson(interactionId: string, outcome: ThreadOutcome, exitCode: ExitCode): RespondJson {
  return {
    result: 'accepted',
    interactionId,
    threadId: outcome.threadId,
    continuation: 'continued',
    status: outcome.status,
    ...(outcome.status === 'waiting' ? { pendingInteractionIds: outcome.pendingInteractionIds } : {}),
    ...(outcome.status === 'completed' ? { output: outcome.output } : {}),
    ...(outcome.status === 'failed' ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
    exitCode,
  };
}

/** Prints a result that ends the command without following a thread, and returns its exit code. */
export function printRespondResult(json: boolean, line: RespondJson, text: string): ExitCode {
  if (json) {
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } else {
    const stream = line.exitCode === ExitCode.completed ? process.stdout : process.stderr;
    const style = createTerminalStyle(colourWanted(stream));
    const paint =
      line.exitCode === ExitCode.completed ? style.green : line.exitCode === ExitCode.failed ? style.red : style.yellow;
    stream.write(`${paint(text)}\n`);
  }
  return line.exitCode;
}
