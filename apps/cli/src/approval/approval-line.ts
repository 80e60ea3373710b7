import { parseJsonStrictly } from '@interlock/core';
import type { ToolApprovalDetails, ToolApprovalResponse } from '@interlock/sdk-types';

/** What one piped line means as the answer to a tool approval. */
export type ApprovalLine = { status: 'valid'; response: ToolApprovalResponse } | { status: 'invalid'; problem: string };

/** The syntax, for messages and help: one line per pending call. */
export const APPROVAL_LINE_SYNTAX = 'y | n[: reason] | edit {json} | i: instruction | remember';

/** The syntax of the answer to a call whose outcome is unknown (stage `recovery`, F40). */
export const RECOVERY_LINE_SYNTAX = 'done | retry | failed[: reason]';

/** The three answers to a call whose outcome is unknown, as the `resolution` they store. */
export const RECOVERY_RESOLUTIONS: ReadonlyMap<string, 'done' | 'retry' | 'fail'> = new Map([
  ['done', 'done'],
  ['retry', 'retry'],
  ['failed', 'fail'],
  ['fail', 'fail'],
]);

const APPROVE = new Set(['y', 'yes', 'approve']);
const REJECT = new Set(['n', 'no', 'reject']);
const INSTRUCT = new Set(['i', 'instruct', 'instruction']);
const REMEMBER = new Set(['remember', 'always']);
/** A keyword, then optionally `: text` (or, for `edit`, a space and the JSON). */
const SHAPE = /^([A-Za-z]+)\s*(?::\s*([\s\S]*))?$/;

/**
 * Reads one line of standard input as the answer to a tool approval:
 * - `y`, `yes`, `approve` → approve;
 * - `n`, `no`, `reject`, optionally `: reason` (`n: not now`) → reject, with the reason as `denyReason`;
 * - `edit {json}` → approve with these arguments instead (a JSON object);
 * - `i: instruction` → approve, and tell the model the instruction;
 * - `remember` → approve and remember for this session (only where offered).
 * Keywords are case-insensitive. At the result stage only approve and reject apply. At the
 * recovery stage (the call started before the process stopped, its outcome unknown) only
 * `done`, `retry` and `failed[: reason]` do: approve does not say whether it ran (F40).
 * The engine still checks the answer (e.g. edited arguments against the tool's schema).
 *
 * @example
 * parseApprovalLine('n: not today', details) // { status: 'valid', response: { approved: false, denyReason: 'not today' } }
 */
export function parseApprovalLine(
  line: string,
  details: Pick<ToolApprovalDetails, 'stage' | 'rememberable'>,
): ApprovalLine {
  const text = line.trim();
  if (details.stage === 'recovery') return parseRecovery(text);
  if (text === '') return invalid(`the line is empty: expected ${APPROVAL_LINE_SYNTAX}`);
  const editMatch = /^edit(?:\s+([\s\S]*))?$/i.exec(text);
  if (editMatch) return details.stage === 'result' ? resultOnly() : parseEdit(editMatch[1] ?? '');
  const shape = SHAPE.exec(text);
  const keyword = shape?.[1]?.toLowerCase() ?? '';
  const rest = shape?.[2]?.trim();
  if (REJECT.has(keyword)) {
    return valid({ approved: false, ...(rest === undefined || rest === '' ? {} : { denyReason: rest }) });
  }
  if (APPROVE.has(keyword)) {
    if (rest !== undefined)
      return invalid(`"${keyword}" takes no text after it: to approve with an instruction for the model write "i: …"`);
    return valid({ approved: true });
  }
  if (details.stage === 'result' && (INSTRUCT.has(keyword) || REMEMBER.has(keyword))) return resultOnly();
  if (INSTRUCT.has(keyword)) {
    if (rest === undefined || rest === '')
      return invalid('an instruction needs its text: write "i: <what the model should do>"');
    return valid({ approved: true, userInstruction: rest });
  }
  if (REMEMBER.has(keyword)) {
    if (!details.rememberable)
      return invalid('"remember for this session" is not offered for this call: answer y or n');
    if (rest !== undefined) return invalid(`"${keyword}" takes no text after it`);
    return valid({ approved: true, remember: true });
  }
  return invalid(`expected ${APPROVAL_LINE_SYNTAX}`);
}

/** `done`, `retry` or `failed[: reason]`: the only answers to a call whose outcome is unknown. */
function parseRecovery(text: string): ApprovalLine {
  const shape = SHAPE.exec(text);
  const keyword = shape?.[1]?.toLowerCase() ?? '';
  const rest = shape?.[2]?.trim();
  const resolution = RECOVERY_RESOLUTIONS.get(keyword);
  if (resolution === undefined)
    return invalid(
      `the call started before the process stopped and its outcome is unknown: answer done (it ran), retry (run it again) or failed (it failed), not ${text === '' ? 'an empty line' : JSON.stringify(text)}`,
    );
  if (resolution !== 'fail' && rest !== undefined) return invalid(`"${keyword}" takes no text after it`);
  if (resolution !== 'fail') return valid({ approved: true, resolution });
  return valid({ approved: false, resolution, ...(rest === undefined || rest === '' ? {} : { denyReason: rest }) });
}

function parseEdit(json: string): ApprovalLine {
  if (json.trim() === '') return invalid('"edit" needs the new arguments as a JSON object: edit {"path": "notes.md"}');
  let value: unknown;
  try {
    value = parseJsonStrictly(json);
  } catch (error) {
    return invalid(
      `the edited arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('the edited arguments must be a JSON object, e.g. edit {"path": "notes.md"}');
  }
  return valid({ approved: true, editedParameters: { ...value } });
}

function resultOnly(): ApprovalLine {
  return invalid('a result can only be approved or rejected: answer y, or n[: reason]');
}

function valid(response: ToolApprovalResponse): ApprovalLine {
  return { status: 'valid', response };
}

function invalid(problem: string): ApprovalLine {
  return { status: 'invalid', problem };
}
