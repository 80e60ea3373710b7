import { CONTINUE_OPTIONS } from './continue-options.js';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import {
  InterlockError,
  MCP_PERMISSION_WORKFLOW_ID,
  MCP_QUESTION_WORKFLOW_ID,
  type RespondResult,
  type ThreadHandle,
} from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { resolveContinueSettings } from '../continue-settings.js';
import { createEventPrinter } from '../create-event-printer.js';
import { ExitCode } from '../exit-code.js';
import { RESPOND_HELP } from '../thread-commands-help.js';
import { lookUpPendingRequest } from '../interaction-lookup.js';
import { reportOutcome } from '../outcome-report.js';
import { parseRespondAnswer, verbMismatch, type RespondAnswer } from '../respond-answer.js';
import { acceptedJson, describeAnswer, printRespondResult } from '../respond-report.js';
import { parseStoreOption, type StoreChoice } from '../store-option.js';
import { colourWanted, createTerminalStyle } from '../terminal-style.js';
import { ThreadNotes } from '../thread-notes.js';
import { ThreadSession } from '../thread-session.js';

/** The workflows behind `interlock mcp serve`: they decide, and never need an MCP server. */
const APPROVAL_SERVICE_WORKFLOWS: readonly string[] = [MCP_PERMISSION_WORKFLOW_ID, MCP_QUESTION_WORKFLOW_ID];
import { UsageError } from '../usage-error.js';
import { withWorkflowFallback } from '../workflow-fallback.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock respond <interactionId> approve|reject|edit '<json>'|answer '<text>' [--reason R]
 * [--instruction I] [--remember] [--store SPEC] [--json]`: answers a pending interaction from
 * any process. The answer is checked first (an invalid one is refused with the engine's
 * message); once stored, the thread continues in this process, asking any further question
 * here when standard input is a terminal (otherwise they stay pending).
 *
 * @returns 0 completed, 3 waiting again, 1 failed or refused, 4 already answered, 5 expired, 130 interrupted.
 * @throws UsageError for a wrong command line.
 */
export async function respondCommand(argv: string[]): Promise<ExitCode> {
  const { values, positionals } = withUsageErrors('respond', () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        reason: { type: 'string' },
        instruction: { type: 'string' },
        remember: { type: 'boolean' },
        ...CONTINUE_OPTIONS,
      },
    }),
  );
  if (values.help) {
    process.stdout.write(RESPOND_HELP);
    return ExitCode.completed;
  }
  const [interactionId, ...words] = positionals;
  if (interactionId === undefined)
    throw new UsageError(
      'interlock respond needs an interaction id: interlock respond <interactionId> approve (list them with interlock pending)',
      'respond',
    );
  const answer = parseRespondAnswer(words, values);
  const json = values.json ?? false;
  const store = parseStoreOption(values.store, 'respond');
  const request = await lookUpPendingRequest(store, interactionId);
  const mismatch = request === undefined ? undefined : verbMismatch(answer.verb, request);
  if (mismatch !== undefined) return refuse(json, interactionId, mismatch);
  const notes = new ThreadNotes(store.notesDirectory);
  const note = request === undefined ? undefined : await notes.recall(request.threadId);
  const settings = await resolveContinueSettings(values, note, 'respond');
  const session = await ThreadSession.open({
    store,
    ...settings,
    // Further questions are asked here only when a person sits at this terminal. (isTTY is
    // undefined, not false, on a pipe: Node's types say boolean.)
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- see above
    answerOn: process.stdin.isTTY === true && request !== undefined ? [request.session.channel] : [],
    json,
    commandLine: `interlock resume ${request?.threadId ?? '<threadId>'}${store.flag}`,
    // An answer to an interaction whose deadline passed is refused as expired (exit 5), not already answered.
    recoverOnStart: false,
    // Answering the approval service's question runs none of the project file's MCP servers (issue 24).
    ...(request !== undefined && APPROVAL_SERVICE_WORKFLOWS.includes(request.workflowId) ? { mcpServers: false } : {}),
  });
  try {
    if (request !== undefined) {
      const check = await session.interlock.checkResponse(interactionId, answer.input);
      if (!check.ok) return refuse(json, interactionId, `the answer was refused: ${check.message}`);
    }
    let result: RespondResult;
    try {
      result = await answerWithFallback(session, notes, interactionId, answer, request);
    } catch (error) {
      if (!InterlockError.is(error)) throw error;
      if (error.code === 'INTERACTION_NOT_FOUND')
        return refuse(
          json,
          interactionId,
          `no interaction ${interactionId} in ${store.label}: list what waits with interlock pending${store.flag}`,
        );
      if (error.code === 'INTERACTION_INVALID_RESPONSE' || error.code === 'APPROVAL_NOT_ALLOWED')
        return refuse(json, interactionId, `the answer was refused: ${error.message}`);
      throw error;
    }
    return await report(session, result, { interactionId, answer, json, store });
  } finally {
    await session.close();
  }
}

async function answerWithFallback(
  session: ThreadSession,
  notes: ThreadNotes,
  interactionId: string,
  answer: RespondAnswer,
  request: UserInteractionRequest | undefined,
): Promise<RespondResult> {
  const { interlock } = session;
  const result = await interlock.respond(interactionId, answer.input, { responder: responderName() });
  if (
    result.status !== 'accepted' ||
    result.continuation.status !== 'stalled' ||
    result.continuation.code !== 'WORKFLOW_NOT_FOUND'
  )
    return result;
  // The answer is stored; the engine has no copy of the thread's workflow: the file the CLI noted takes the thread on.
  const { message } = result.continuation;
  const threadId = request?.threadId ?? result.threadId;
  return withWorkflowFallback(
    interlock,
    notes,
    threadId,
    () => Promise.reject(new InterlockError('WORKFLOW_NOT_FOUND', message)),
    async (): Promise<RespondResult> => ({
      ...result,
      continuation: { status: 'continued' },
      thread: await interlock.resume(threadId),
    }),
  );
}

async function report(
  session: ThreadSession,
  result: RespondResult,
  options: { interactionId: string; answer: RespondAnswer; json: boolean; store: StoreChoice },
): Promise<ExitCode> {
  const { interactionId, json } = options;
  const { threadId } = result;
  switch (result.status) {
    case 'already_answered':
      return printRespondResult(
        json,
        { result: 'already_answered', interactionId, threadId, exitCode: ExitCode.alreadyAnswered },
        `Interaction ${interactionId} was already answered (thread ${threadId}): nothing changed.`,
      );
    case 'expired': {
      const line = `Interaction ${interactionId} expired: its deadline passed, so the answer was refused and nothing ran for it (thread ${threadId}).`;
      printRespondResult(json, { result: 'expired', interactionId, threadId, exitCode: ExitCode.expired }, line);
      // The engine resolved the wait as timed out and took the thread on: see it to its next stop.
      const going = await runningHandle(session, threadId);
      if (going !== undefined) await session.follow(going, json ? undefined : createEventPrinter(false));
      return ExitCode.expired;
    }
    case 'accepted':
      break;
  }
  const thread: ThreadHandle | undefined = result.thread;
  if (result.continuation.status === 'awaiting-approvals') {
    const { given, required } = result.continuation;
    return printRespondResult(
      json,
      { result: 'accepted', interactionId, threadId, approvals: { given, required }, exitCode: ExitCode.waiting },
      `✓ ${describeAnswer(options.answer)}: approval ${given} of ${required} for interaction ${interactionId}; the call runs once ${required - given} more approver${required - given === 1 ? '' : 's'} approve the same arguments (thread ${threadId}).`,
    );
  }
  if (result.continuation.status === 'stalled') {
    const { code, message } = result.continuation;
    return printRespondResult(
      json,
      { result: 'accepted', interactionId, threadId, error: { code, message }, exitCode: ExitCode.waiting },
      `✓ ${describeAnswer(options.answer)}: stored for interaction ${interactionId}, but thread ${threadId} did not go on (${code}: ${message}). Run \`interlock resume ${threadId}\` once that is fixed.`,
    );
  }
  if (thread === undefined) {
    return printRespondResult(
      json,
      { result: 'accepted', interactionId, threadId, exitCode: ExitCode.completed },
      `✓ ${describeAnswer(options.answer)}: stored for interaction ${interactionId}; another process is taking thread ${threadId} forward and applies it.`,
    );
  }
  if (!json) {
    const style = createTerminalStyle(colourWanted(process.stdout));
    process.stdout.write(
      `${style.green(`✓ ${describeAnswer(options.answer)}`)} ${style.dim(`(interaction ${interactionId}, thread ${threadId})`)}\n`,
    );
  }
  const followed = await session.follow(thread, json ? undefined : createEventPrinter(false));
  if (json)
    process.stdout.write(`${JSON.stringify(acceptedJson(interactionId, followed.outcome, followed.exitCode))}\n`);
  else await reportOutcome(session, followed, options);
  return followed.exitCode;
}

async function runningHandle(session: ThreadSession, threadId: string): Promise<ThreadHandle | undefined> {
  try {
    return await session.interlock.resume(threadId);
  } catch {
    return undefined;
  }
}

function refuse(json: boolean, interactionId: string, message: string): ExitCode {
  return printRespondResult(
    json,
    { result: 'refused', interactionId, message, exitCode: ExitCode.failed },
    `interlock respond: ${message}`,
  );
}

/** Who answered, for the audit trail: `cli:<user name>`. */
function responderName(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}
