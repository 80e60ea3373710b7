import type { ToolApprovalDetails, UserInteractionRequest } from '@interlock/sdk-types';
import { createTerminalStyle, type TerminalStyle } from '../terminal-style.js';
import { displayJson } from './json-display.js';
import { truncateForDisplay } from './truncate-for-display.js';
import { hasInvisible, hasLongBlankRun, makeVisible } from './visible-text.js';

/** Where a call stands in the batch the person is answering, e.g. 2 of 3. */
export interface BatchPosition {
  index: number;
  total: number;
}

const INDENT = '  ';

/** The stage of a request, as the card says it. */
const STAGES: Record<ToolApprovalDetails['stage'], string> = {
  execution: 'execution',
  result: 'result: the call ran; the model sees its result only if you approve',
  recovery: 'recovery: the call started before the process stopped and its outcome is unknown',
};

/**
 * A short name for a tool call, for lists and event lines: the tool and its first string
 * argument (the path, the command, the URL), e.g. `bash(ls -la)`, with invisible
 * characters shown as markers and long values cut at 48 characters.
 */
export function callLabel(toolName: string, parameters: Record<string, unknown>): string {
  const first = Object.values(parameters).find((value): value is string => typeof value === 'string');
  if (first === undefined) return makeVisible(toolName);
  const flat = makeVisible(first.replace(/\n/g, '⏎'));
  const shown = flat.length > 48 ? `${flat.slice(0, 47)}…` : flat;
  return `${makeVisible(toolName)}(${shown})`;
}

/**
 * Everything a person needs to decide on one tool call, as lines: the tool and where it
 * stands in the batch, what it does, its category and risk, the rule that asked, the stage,
 * and the exact arguments as indented JSON (or, at the result stage, the result, cut to
 * about a screenful with a note on what was cut). Invisible and bidirectional characters
 * are shown as `⟨U+XXXX⟩` markers, with a warning line when there are any.
 */
export function describeToolCall(
  details: ToolApprovalDetails,
  style: TerminalStyle,
  position?: BatchPosition,
): string[] {
  const where = position === undefined || position.total < 2 ? '' : ` (${position.index} of ${position.total})`;
  const stage = STAGES[details.stage];
  const lines = [
    style.bold(`Tool call${where}: ${makeVisible(details.toolName)}`),
    ...(details.toolDescription === ''
      ? []
      : [
          `${INDENT}${details.toolName.startsWith('mcp__') ? style.yellow('from its MCP server, not checked: ') : ''}${style.dim(makeVisible(details.toolDescription))}`,
        ]),
    ...(details.definitionChange === undefined ? [] : describeDefinitionChange(details.definitionChange, style)),
    `${INDENT}category ${style.bold(details.category)} · risk ${riskColour(details.riskLevel, style)} · asked by rule ${style.bold(details.rule)}`,
    `${INDENT}stage ${style.bold(stage)}`,
    `${INDENT}arguments:`,
    ...indent(displayJson(details.toolParameters, style), `${INDENT}${INDENT}`),
  ];
  const said = modelWrittenNote(details.toolParameters);
  if (said !== undefined)
    lines.push(`${INDENT}${style.yellow('written by the model, not checked:')} ${makeVisible(said)}`);
  if (someString(details.toolParameters, (text) => hasInvisible(text, { keep: ['\n', '\t', '\r'] }))) {
    lines.push(
      `${INDENT}${style.red(style.bold('⚠ the arguments contain invisible or bidirectional characters, shown as ⟨U+XXXX⟩'))}`,
    );
  }
  if (someString(details.toolParameters, hasLongBlankRun)) {
    lines.push(
      `${INDENT}${style.red(style.bold('⚠ the arguments contain long runs of blanks, shown counted as ⟨N spaces⟩'))}`,
    );
  }
  if (details.stage === 'result') lines.push(...describeResult(details.result, style));
  return lines;
}

/** One line per call of a batch, numbered, for "3 tool calls wait for you". */
export function describeBatch(requests: readonly UserInteractionRequest[], style: TerminalStyle): string[] {
  const approvals = requests.flatMap((request) => (request.toolApproval ? [request.toolApproval] : []));
  return [
    style.bold(`${approvals.length} tool calls wait for you:`),
    ...approvals.map((details, index) => {
      const stage = details.stage === 'execution' ? '' : ` · ${details.stage}`;
      return `${INDENT}${index + 1}. ${callLabel(details.toolName, details.toolParameters)} ${style.dim(`· ${details.category} · risk ${details.riskLevel}${stage}`)}`;
    }),
  ];
}

/** Arguments in which a model explains its own call; shown, labelled, never trusted. */
const MODEL_NOTE_FIELDS = ['description', 'explanation', 'justification', 'reason'] as const;

function modelWrittenNote(parameters: Record<string, unknown>): string | undefined {
  for (const field of MODEL_NOTE_FIELDS) {
    const value = parameters[field];
    if (typeof value === 'string' && value.trim() !== '') return `${field}: ${JSON.stringify(value)}`;
  }
  return undefined;
}

function describeResult(result: unknown, style: TerminalStyle): string[] {
  const { text, note } = truncateForDisplay(resultText(result));
  return [
    `${INDENT}result:`,
    ...indent(makeVisible(text), `${INDENT}${INDENT}`),
    ...(note === undefined ? [] : [`${INDENT}${style.yellow(note)}`]),
  ];
}

/** Whether the result shown for approval was cut to a screenful. */
export function resultWasCut(result: unknown): boolean {
  return truncateForDisplay(resultText(result)).note !== undefined;
}

/** The whole result, for "Show the whole result". */
export function describeWholeResult(result: unknown): string[] {
  return [`${INDENT}whole result:`, ...indent(makeVisible(resultText(result)), `${INDENT}${INDENT}`)];
}

function resultText(result: unknown): string {
  return typeof result === 'string' ? result : displayJson(result ?? null, createTerminalStyle(false));
}

function riskColour(risk: string, style: TerminalStyle): string {
  if (risk === 'HIGH') return style.red(style.bold(risk));
  if (risk === 'MEDIUM') return style.yellow(risk);
  return style.green(risk);
}

function indent(text: string, prefix: string): string[] {
  return text.split('\n').map((line) => `${prefix}${line}`);
}

/** Whether any key or string in `value` passes `test`. */
function someString(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.some((item) => someString(item, test));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, item]) => test(key) || someString(item, test));
  }
  return false;
}

/** A pinned tool's definition that changed since it was approved: a warning and the diff. */
function describeDefinitionChange(
  change: NonNullable<ToolApprovalDetails['definitionChange']>,
  style: TerminalStyle,
): string[] {
  return [
    `${INDENT}${style.red(style.bold(`⚠ its definition changed since it was approved (${change.previousHash.slice(0, 12)} → ${change.hash.slice(0, 12)}):`))}`,
    ...change.diff
      .split('\n')
      .map(
        (line) =>
          `${INDENT}${INDENT}${line.startsWith('+') ? style.green(makeVisible(line)) : line.startsWith('-') ? style.red(makeVisible(line)) : style.dim(makeVisible(line))}`,
      ),
  ];
}
