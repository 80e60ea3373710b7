import { parseJsonStrictly } from '@interlock/core';
import type { ToolApprovalResponse, UserInteractionRequest } from '@interlock/sdk-types';
import { RECOVERY_RESOLUTIONS } from './approval/approval-line.js';
import { UsageError } from './usage-error.js';

/** The ways `interlock respond` answers: the first three for tool approvals, `answer` for questions. */
export const RESPOND_VERBS = ['approve', 'reject', 'edit', 'answer'] as const;

/**
 * One of {@link RESPOND_VERBS}, or `resolve`: `--resolution done|retry|failed` answers a call
 * whose outcome is unknown (stage `recovery`, F40).
 */
export type RespondVerb = (typeof RESPOND_VERBS)[number] | 'resolve';

/** The options of `interlock respond` that shape an answer. */
export interface RespondAnswerFlags {
  reason?: string | undefined;
  instruction?: string | undefined;
  remember?: boolean | undefined;
  resolution?: string | undefined;
}

/** The answers to a call whose outcome is unknown, as `interlock respond` takes them. */
const RESOLUTION_FLAG = '--resolution done|retry|failed';

/** What `interlock respond` sends: the verb it was given and the raw input for `interlock.respond`. */
export interface RespondAnswer {
  verb: RespondVerb;
  /** A {@link ToolApprovalResponse} for approve/reject/edit; the text as given for answer (the engine reads it per the question's input kind). */
  input: ToolApprovalResponse | string;
}

const COMMAND = 'respond';

/**
 * Reads the words after the interaction id: `approve`, `reject`, `edit '<json>'` or
 * `answer '<text or json>'`, with `--reason` (reject), `--instruction` (approve, edit,
 * reject) and `--remember` (approve, edit).
 *
 * @throws UsageError for an unknown verb, a missing or extra value, an option the verb does
 *   not take, or edited arguments that are not one JSON object.
 */
export function parseRespondAnswer(words: readonly string[], flags: RespondAnswerFlags): RespondAnswer {
  if (flags.resolution !== undefined) return parseResolution(words, flags);
  const [word, ...values] = words;
  const verb = RESPOND_VERBS.find((candidate) => candidate === word);
  if (verb === undefined) {
    const given = word === undefined ? 'an answer' : `an answer, not ${JSON.stringify(word)}`;
    throw new UsageError(
      `interlock respond needs ${given}: approve, reject, edit '<json>', answer '<text>' or ${RESOLUTION_FLAG}`,
      COMMAND,
    );
  }
  const takesValue = verb === 'edit' || verb === 'answer';
  if (takesValue && values.length === 0)
    throw new UsageError(
      `interlock respond … ${verb} needs a value: ${verb} '<${verb === 'edit' ? 'json' : 'text'}>'`,
      COMMAND,
    );
  if (values.length > (takesValue ? 1 : 0)) {
    throw new UsageError(
      `interlock respond … ${verb} takes ${takesValue ? 'one value' : 'no value'}, not also ${values.slice(takesValue ? 1 : 0).join(' ')} (quote a value with spaces)`,
      COMMAND,
    );
  }
  if (flags.reason !== undefined && verb !== 'reject')
    throw new UsageError('--reason goes with reject or --resolution failed', COMMAND);
  if (flags.instruction !== undefined && verb === 'answer')
    throw new UsageError('--instruction goes with approve, edit or reject', COMMAND);
  if (flags.remember === true && verb !== 'approve' && verb !== 'edit')
    throw new UsageError('--remember goes with approve or edit', COMMAND);
  const [value = ''] = values;
  const instruction = flags.instruction === undefined ? {} : { userInstruction: flags.instruction };
  const remember = flags.remember === true ? { remember: true } : {};
  switch (verb) {
    case 'approve':
      return { verb, input: { approved: true, ...instruction, ...remember } };
    case 'reject':
      return {
        verb,
        input: { approved: false, ...(flags.reason === undefined ? {} : { denyReason: flags.reason }), ...instruction },
      };
    case 'edit':
      return {
        verb,
        input: { approved: true, editedParameters: parseEditedArguments(value), ...instruction, ...remember },
      };
    case 'answer':
      return { verb, input: value };
  }
}

/** `--resolution done|retry|failed [--reason R]`, with no answer word. */
function parseResolution(words: readonly string[], flags: RespondAnswerFlags): RespondAnswer {
  const resolution = RECOVERY_RESOLUTIONS.get(flags.resolution?.trim().toLowerCase() ?? '');
  if (resolution === undefined)
    throw new UsageError(
      `--resolution takes done (it ran), retry (run it again) or failed (it failed), not ${JSON.stringify(flags.resolution)}`,
      COMMAND,
    );
  if (words.length > 0)
    throw new UsageError(
      `--resolution is the whole answer: drop ${words.map((word) => JSON.stringify(word)).join(' ')}`,
      COMMAND,
    );
  if (flags.reason !== undefined && resolution !== 'fail')
    throw new UsageError('--reason goes with reject or --resolution failed', COMMAND);
  if (flags.instruction !== undefined || flags.remember === true)
    throw new UsageError('--resolution takes no --instruction or --remember', COMMAND);
  if (resolution !== 'fail') return { verb: 'resolve', input: { approved: true, resolution } };
  return {
    verb: 'resolve',
    input: { approved: false, resolution, ...(flags.reason === undefined ? {} : { denyReason: flags.reason }) },
  };
}

/**
 * Why this verb cannot answer this request (a tool approval takes approve, reject or edit;
 * one whose outcome is unknown, `--resolution`; a question takes answer), or undefined when it can.
 */
export function verbMismatch(verb: RespondVerb, request: UserInteractionRequest): string | undefined {
  const approval = request.operationType === 'TOOL_APPROVAL';
  const recovery = request.toolApproval?.stage === 'recovery';
  if (recovery && verb !== 'resolve') {
    return `interaction ${request.interactionId} asks what became of ${request.toolApproval?.toolName ?? 'a tool call'}, which started before the process stopped (stage recovery): ${verb} does not say whether it ran. Answer it with --resolution done (it ran: go on), retry (run it again) or failed (report that it failed)`;
  }
  if (!recovery && verb === 'resolve') {
    return `--resolution answers only a call whose outcome is unknown (stage recovery); interaction ${request.interactionId} is ${approval ? `at stage ${request.toolApproval?.stage ?? 'execution'}: answer it with approve, reject or edit` : "a question: answer it with answer '<text>'"}`;
  }
  if (approval && verb === 'answer') {
    return `interaction ${request.interactionId} is a tool approval (${request.toolApproval?.toolName ?? 'a tool'}): answer it with approve, reject [--reason R] or edit '<json>'`;
  }
  if (!approval && verb !== 'answer') {
    return `interaction ${request.interactionId} is a question (${request.operationType}), not a tool approval: answer it with answer '<text>'`;
  }
  return undefined;
}

function parseEditedArguments(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJsonStrictly(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `interlock respond … edit: the arguments are not valid JSON (${reason}): give one JSON object, e.g. '{"command":"ls"}'`,
      COMMAND,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `interlock respond … edit: the arguments must be a JSON object, e.g. '{"path":"README.md"}'`,
      COMMAND,
    );
  }
  return { ...value };
}
