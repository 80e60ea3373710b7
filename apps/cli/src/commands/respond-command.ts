import { CONTINUE_OPTIONS } from './continue-options.js';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import {
  answerFailureOf,
  InterlockError,
  MCP_PERMISSION_WORKFLOW_ID,
  MCP_QUESTION_WORKFLOW_ID,
  type AnswerOutcome,
  type RespondResult,
} from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { resolveContinueSettings } from '../continue-settings.js';
import { ExitCode } from '../exit-code.js';
import { RESPOND_HELP } from '../thread-commands-help.js';
import { lookUpPendingRequest } from '../interaction-lookup.js';
import { parseRespondAnswer, verbMismatch, type RespondAnswer } from '../respond-answer.js';
import { exitOf, reportRespond, storeFailure } from '../respond-outcome.js';
import { printRespondResult } from '../respond-report.js';
import { parseStoreOption } from '../store-option.js';
import { ThreadNotes } from '../thread-notes.js';
import { ThreadSession } from '../thread-session.js';

/** The workflows behind `interlock mcp serve`: they decide, and never need an MCP server. */
const APPROVAL_SERVICE_WORKFLOWS: readonly string[] = [MCP_PERMISSION_WORKFLOW_ID, MCP_QUESTION_WORKFLOW_ID];
import { UsageError } from '../usage-error.js';
import { withWorkflowFallback } from '../workflow-fallback.js';
import { withUsageErrors } from './with-usage-errors.js';

/**
 * `interlock respond <interactionId> approve|reject|edit '<json>'|answer '<text>' [--reason R]
 * [--instruction I] [--remember] [--store SPEC] [--json]`, or `--resolution done|retry|failed`
 * for a call whose outcome is unknown (F40): answers a pending interaction from
 * any process. The answer is checked first (an invalid one, or an edit the rules refuse, is
 * refused with the engine's message and the question still waits); once stored, the thread
 * continues in this process, asking any further question here when standard input is a
 * terminal (otherwise they stay pending) — unless a live worker serves the thread's workflow
 * version (a deployment): then the answer is stored with the job that hands the thread to it.
 *
 * @returns 0 completed (or left to a worker or the process holding the thread), 3 waiting
 *   again, 1 failed or refused, 4 already answered, 5 expired, 6 outcome unknown, 130 interrupted.
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
        resolution: { type: 'string' },
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
  const found = await lookUpPendingRequest(store, interactionId);
  const request = found?.request;
  const mismatch = request === undefined ? undefined : verbMismatch(answer.verb, request);
  if (mismatch !== undefined) return refuse(json, interactionId, mismatch, 'invalid');
  const notes = new ThreadNotes(store.notesDirectory);
  const note = request === undefined ? undefined : await notes.recall(request.threadId);
  const settings = await resolveContinueSettings(values, note, 'respond');
  // A deployment (a live worker serves the thread's version): this process only answers, as
  // the web inbox does; the answer is stored with the job that hands the thread to that worker.
  const deployment = found?.served === true;
  const session = await ThreadSession.open({
    store,
    ...settings,
    // Further questions are asked here only when a person sits at this terminal. (isTTY is
    // undefined, not false, on a pipe: Node's types say boolean.)
    answerOn:
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- see above
      process.stdin.isTTY === true && request !== undefined && !deployment ? [request.session.channel] : [],
    json,
    commandLine: `interlock resume ${request?.threadId ?? '<threadId>'}${store.flag}`,
    // An answer to an interaction whose deadline passed is refused as expired (exit 5), not already answered.
    recoverOnStart: false,
    // Answering the approval service's question runs none of the project file's MCP servers (issue 24).
    ...(request !== undefined && APPROVAL_SERVICE_WORKFLOWS.includes(request.workflowId) ? { mcpServers: false } : {}),
    ...(deployment ? { continueIn: 'workers-only' as const } : {}),
  });
  const responder = responderName();
  try {
    if (request !== undefined) {
      const check = await session.interlock.checkResponse(interactionId, answer.input);
      if (!check.ok) {
        await audited(session, interactionId, responder, 'refused', `${answer.verb}: ${check.message}`);
        return refuse(
          json,
          interactionId,
          `the answer was refused: ${check.message}. The question still waits`,
          'invalid',
        );
      }
    }
    let result: RespondResult;
    try {
      result = await answerWithFallback(session, notes, interactionId, answer, request, responder);
    } catch (error) {
      if (!InterlockError.is(error)) throw error;
      // Each outcome's row of RESPOND_EXITS: refused (nothing stored, the question still waits), not found, or a store failure.
      switch (answerFailureOf(error)) {
        case 'not-found':
          return refuse(
            json,
            interactionId,
            `no interaction ${interactionId} in ${store.label}: list what waits with interlock pending${store.flag}`,
            'not-found',
          );
        case 'invalid':
          return refuse(
            json,
            interactionId,
            `the answer was refused: ${error.message}. The question still waits`,
            'invalid',
          );
        // The requester's approval of a call that needs several, or an escalation approver's too early (F51).
        case 'not-allowed':
          await audited(session, interactionId, responder, 'refused', `${answer.verb}: ${error.message}`);
          return refuse(
            json,
            interactionId,
            `the answer was refused: ${error.message}. The question still waits`,
            'not-allowed',
          );
        case 'workflow-changed':
          return refuse(json, interactionId, `your answer was not stored: ${error.message}`, 'workflow-changed');
        default: {
          const failed = storeFailure(error, { interactionId, json, store });
          if (failed !== undefined) return failed;
          throw error;
        }
      }
    }
    const exitCode = await reportRespond(session, result, {
      interactionId,
      answer,
      json,
      store,
      ...(found === undefined ? {} : { workflow: found.workflow }),
    });
    if (result.status !== 'accepted')
      await audited(session, interactionId, responder, 'lost', `${answer.verb}: ${result.status}`);
    return exitCode;
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
  responder: string,
): Promise<RespondResult> {
  const { interlock } = session;
  const result = await interlock.respond(interactionId, answer.input, { responder });
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

function refuse(json: boolean, interactionId: string, message: string, outcome: AnswerOutcome): ExitCode {
  return printRespondResult(
    json,
    { result: 'refused', interactionId, message, exitCode: exitOf(outcome) },
    `interlock respond: ${message}`,
  );
}

/** Writes an answer that did not count to the audit trail (as the web inbox does); never fails the command. */
async function audited(
  session: ThreadSession,
  interactionId: string,
  responder: string,
  result: 'refused' | 'lost',
  reason: string,
): Promise<void> {
  await session.interlock.recordAttempt({ interactionId, responder, result, reason }).catch(() => undefined);
}

/** Who answered, for the audit trail: `cli:<user name>`. */
function responderName(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}
