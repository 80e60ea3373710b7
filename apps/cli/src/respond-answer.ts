import { parseJsonStrictly } from '@interlock/core';
import type { ToolApprovalResponse, UserInteractionRequest } from '@interlock/sdk-types';
import { UsageError } from './usage-error.js';

/** The ways `interlock respond` answers: the first three for tool approvals, `answer` for questions. */
export const RESPOND_VERBS = ['approve', 'reject', 'edit', 'answer'] as const;

/** One of {@link RESPOND_VERBS}. */
export type RespondVerb = (typeof RESPOND_VERBS)[number];

/** The options of `interlock respond` that shape an answer. */
export interface RespondAnswerFlags {
  reason?: string | undefined;
  instruction?: string | undefined;
  remember?: boolean | undefined;
}

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
  const [word, ...values] = words;
  const verb = RESPOND_VERBS.find((candidate) => candidate === word);
  if (verb === undefined) {
    const given = word === undefined ? 'an answer' : `an answer, not ${JSON.stringify(word)}`;
    throw new UsageError(
      `interlock respond needs ${given}: approve, reject, edit '<json>' or answer '<text>'`,
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
  if (flags.reason !== undefined && verb !== 'reject') throw new UsageError('--reason goes with reject', COMMAND);
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

/**
 * Why this verb cannot answer this request (a tool approval takes approve, reject or edit;
 * a question takes answer), or undefined when it can.
 */
export function verbMismatch(verb: RespondVerb, request: UserInteractionRequest): string | undefined {
  const approval = request.operationType === 'TOOL_APPROVAL';
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
