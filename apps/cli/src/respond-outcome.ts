import {
  answerFailureOf,
  answerOutcomeOf,
  type AnswerOutcome,
  type InterlockError,
  type RespondResult,
  type ThreadHandle,
} from '@interlock/core';
import { createEventPrinter } from './create-event-printer.js';
import { ExitCode } from './exit-code.js';
import { reportOutcome } from './outcome-report.js';
import type { RespondAnswer } from './respond-answer.js';
import { acceptedJson, describeAnswer, printRespondResult } from './respond-report.js';
import type { StoreChoice } from './store-option.js';
import { colourWanted, createTerminalStyle } from './terminal-style.js';
import type { ThreadSession } from './thread-session.js';

/**
 * How `interlock respond` ends for each outcome of an answer: its exit code, or `followed` (the
 * thread went on here, and the command follows it to its next stop: 0 if it completes, 3 if it
 * asks again). One table, the rows of docs/cli.md's "What an answer came to"
 * (respond-outcome.test.ts checks every one).
 */
export const RESPOND_EXITS: Readonly<Record<AnswerOutcome, ExitCode | 'followed'>> = {
  continued: 'followed',
  scheduled: ExitCode.completed,
  elsewhere: ExitCode.completed,
  stalled: ExitCode.waiting,
  'awaiting-approvals': ExitCode.waiting,
  finished: ExitCode.completed,
  'already-answered': ExitCode.alreadyAnswered,
  expired: ExitCode.expired,
  invalid: ExitCode.failed,
  'not-allowed': ExitCode.failed,
  'workflow-changed': ExitCode.failed,
  'not-found': ExitCode.failed,
  'not-stored': ExitCode.failed,
  unknown: ExitCode.outcomeUnknown,
};

/** The exit code of an outcome that ends the command at once (every one but `continued`). */
export function exitOf(outcome: AnswerOutcome): ExitCode {
  const exit = RESPOND_EXITS[outcome];
  return exit === 'followed' ? ExitCode.completed : exit;
}

/** What `interlock respond` knows of the answer it reports on. */
export interface RespondContext {
  interactionId: string;
  answer: RespondAnswer;
  json: boolean;
  store: StoreChoice;
  /** The workflow and version of the thread, when the interaction was found pending. */
  workflow?: { id: string; version: string };
}

/**
 * Says what became of an answer (docs/cli.md, "What an answer came to") and returns the exit
 * code: followed here to its next stop, left to a worker of the thread's version or to the
 * process that holds the thread, found ended, stalled (and why), already answered (by whom)
 * or expired.
 */
export async function reportRespond(
  session: ThreadSession,
  result: RespondResult,
  context: RespondContext,
): Promise<ExitCode> {
  const { interactionId, json } = context;
  const { threadId } = result;
  if (result.status === 'already_answered') {
    const by = await answeredBy(session, threadId, interactionId);
    return printRespondResult(
      json,
      { result: 'already_answered', interactionId, threadId, exitCode: exitOf('already-answered'), ...by.json },
      `Interaction ${interactionId} ${by.text} (thread ${threadId}): your answer changed nothing.`,
    );
  }
  if (result.status === 'expired') {
    const line = `Interaction ${interactionId} expired: its deadline passed, so the answer was refused and nothing ran for it (thread ${threadId}).`;
    printRespondResult(json, { result: 'expired', interactionId, threadId, exitCode: exitOf('expired') }, line);
    // The engine resolved the wait as timed out and took the thread on: see it to its next stop.
    const going = await runningHandle(session, threadId);
    if (going !== undefined) await session.follow(going, json ? undefined : createEventPrinter(false));
    return exitOf('expired');
  }
  const said = `✓ ${describeAnswer(context.answer)}: ${result.repeated === true ? 'stored before' : 'stored'} for interaction ${interactionId}`;
  const accepted = { result: 'accepted' as const, interactionId, threadId, continuation: result.continuation.status };
  const exitCode = exitOf(answerOutcomeOf(result));
  switch (result.continuation.status) {
    case 'continued':
      break;
    case 'scheduled': {
      const which =
        context.workflow === undefined
          ? 'its workflow'
          : `workflow "${context.workflow.id}" version ${context.workflow.version}`;
      return printRespondResult(
        json,
        { ...accepted, exitCode },
        `${said}; a worker serving ${which} takes thread ${threadId} forward (interlock threads shows where it stands).`,
      );
    }
    case 'elsewhere':
      return printRespondResult(
        json,
        { ...accepted, exitCode },
        `${said}; another process is taking thread ${threadId} forward and applies it.`,
      );
    case 'finished':
      return printRespondResult(
        json,
        { ...accepted, status: result.continuation.threadStatus, exitCode },
        `${said} and applied; thread ${threadId} has ${result.continuation.threadStatus} since: nothing more to do.`,
      );
    case 'awaiting-approvals': {
      // A call that needs several approvers (F51): this approval is counted; the call waits for the rest.
      const { given, required } = result.continuation;
      const more = required - given;
      return printRespondResult(
        json,
        { ...accepted, approvals: { given, required }, exitCode },
        `✓ ${describeAnswer(context.answer)}: approval ${given} of ${required}${result.repeated === true ? ' (counted before)' : ''} for interaction ${interactionId}; the call runs once ${more} more approver${more === 1 ? '' : 's'} approve the same arguments (thread ${threadId}).`,
      );
    }
    case 'stalled': {
      const { code, message } = result.continuation;
      return printRespondResult(
        json,
        { ...accepted, error: { code, message }, exitCode },
        `${said}, but thread ${threadId} did not go on (${code}: ${message}). It waits with your answer: run \`interlock resume ${threadId}\` once that is fixed, or start a worker that serves it (interlock worker <workflow> --store …).`,
      );
    }
  }
  const thread: ThreadHandle | undefined = result.thread;
  if (thread === undefined) {
    return printRespondResult(
      json,
      { ...accepted, exitCode: ExitCode.completed },
      `${said}; another process is taking thread ${threadId} forward and applies it.`,
    );
  }
  if (!json) {
    const style = createTerminalStyle(colourWanted(process.stdout));
    process.stdout.write(
      `${style.green(`✓ ${describeAnswer(context.answer)}`)} ${style.dim(`(interaction ${interactionId}, thread ${threadId})`)}\n`,
    );
  }
  const followed = await session.follow(thread, json ? undefined : createEventPrinter(false));
  if (json)
    process.stdout.write(`${JSON.stringify(acceptedJson(interactionId, followed.outcome, followed.exitCode))}\n`);
  else await reportOutcome(session, followed, context);
  return followed.exitCode;
}

/**
 * A database failure while answering: nothing stored (STORE_UNAVAILABLE), or a commit cut
 * off (STORE_OUTCOME_UNKNOWN: it may or may not be stored). Undefined for any other error.
 */
export function storeFailure(
  error: InterlockError,
  context: Pick<RespondContext, 'interactionId' | 'json' | 'store'>,
): ExitCode | undefined {
  const { interactionId, json, store } = context;
  const outcome = answerFailureOf(error);
  if (outcome === 'not-stored')
    return printRespondResult(
      json,
      {
        result: 'not_stored',
        interactionId,
        error: { code: error.code, message: error.message },
        exitCode: exitOf(outcome),
      },
      `interlock respond: your answer was not stored: the store failed (${error.message}). Answer again once it is back.`,
    );
  if (outcome === 'unknown')
    return printRespondResult(
      json,
      {
        result: 'unknown',
        interactionId,
        error: { code: error.code, message: error.message },
        exitCode: exitOf(outcome),
      },
      `interlock respond: the connection to the store failed while your answer was being committed: it may or may not be stored. Run interlock pending${store.flag}: if interaction ${interactionId} still waits, answer again (the same answer again is safe).`,
    );
  return undefined;
}

/** Who answered an interaction first, and when, for the message of a lost answer. */
async function answeredBy(
  session: ThreadSession,
  threadId: string,
  interactionId: string,
): Promise<{ text: string; json: { answeredBy?: string; answeredAt?: string } }> {
  const record = (await session.interlock.interactions({ threadId }).catch(() => [])).find(
    (candidate) => candidate.interactionId === interactionId,
  );
  const response = record?.response;
  if (response === undefined)
    return {
      text:
        record?.failureReason === undefined ? 'was already answered' : `is no longer pending (${record.failureReason})`,
      json: {},
    };
  const by = response.responder ?? 'another responder';
  return {
    text: `was already answered by ${by} at ${response.respondedAt}`,
    json: { answeredBy: by, answeredAt: response.respondedAt },
  };
}

async function runningHandle(session: ThreadSession, threadId: string): Promise<ThreadHandle | undefined> {
  try {
    return await session.interlock.resume(threadId);
  } catch {
    return undefined;
  }
}
