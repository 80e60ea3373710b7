import { parseJsonStrictly } from '@interlock/core';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confirm, input } from '@inquirer/prompts';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import type { TerminalStyle } from '../terminal-style.js';
import type { ResponseChecker } from './tool-approver.js';
import { escapeInvisibleInJson } from './visible-text.js';

/** What editing the arguments of a call needs. */
export interface EditArgumentsOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  style: TerminalStyle;
  signal: AbortSignal;
  /** Where `VISUAL` and `EDITOR` are read. */
  environment: NodeJS.ProcessEnv;
  checkResponse?: ResponseChecker;
}

/**
 * Lets the person edit the arguments of a tool call, and re-asks until the engine would
 * accept them (`checkResponse`) or the person gives up. With `VISUAL` or `EDITOR` set, the
 * arguments open as a JSON file in that editor (invisible characters written as `\uXXXX`
 * escapes, so nothing hides); otherwise they are edited inline as one line of JSON.
 *
 * @returns the edited arguments, or `undefined` when the person abandoned the edit (an
 *   empty or unchanged file or line, or "no" to "edit again?").
 * @throws inquirer's `ExitPromptError` on Ctrl+C, for the caller to treat as an interruption.
 */
export async function editArguments(
  request: UserInteractionRequest,
  options: EditArgumentsOptions,
): Promise<Record<string, unknown> | undefined> {
  const editor = options.environment['VISUAL'] || options.environment['EDITOR'];
  const parameters = request.toolApproval?.toolParameters ?? {};
  return editor ? editInEditor(editor, request, parameters, options) : editInline(request, parameters, options);
}

async function editInEditor(
  editor: string,
  request: UserInteractionRequest,
  parameters: Record<string, unknown>,
  options: EditArgumentsOptions,
): Promise<Record<string, unknown> | undefined> {
  const { output, style } = options;
  const original = `${escapeInvisibleInJson(JSON.stringify(parameters, null, 2))}\n`;
  let text = original;
  for (;;) {
    output.write(
      style.dim(
        `  opening the arguments in ${editor} (save and quit to continue; an empty or unchanged file goes back)\n`,
      ),
    );
    const edited = runEditor(editor, text);
    if (edited.status === 'failed') {
      output.write(`${style.red(`  ${edited.message}`)}\n`);
      return undefined;
    }
    if (edited.text.trim() === '' || edited.text.trim() === original.trim()) {
      output.write(style.dim('  no change: back to the choices\n'));
      return undefined;
    }
    const checked = await checkEdit(request, edited.text, options);
    if (checked.status === 'valid') return checked.parameters;
    output.write(`${style.red(`  ${checked.problem}`)}\n`);
    const again = await confirm(
      { message: 'Edit them again? (no goes back to the choices)', default: true },
      { input: options.input, output, signal: options.signal },
    );
    if (!again) return undefined;
    text = edited.text;
  }
}

async function editInline(
  request: UserInteractionRequest,
  parameters: Record<string, unknown>,
  options: EditArgumentsOptions,
): Promise<Record<string, unknown> | undefined> {
  const { style } = options;
  const original = escapeInvisibleInJson(JSON.stringify(parameters));
  // Inquirer answers an empty line with the default, so "unchanged" is how an empty line reads here.
  const unchanged = (text: string): boolean => text.trim() === '' || text.trim() === original;
  const answer = await input(
    {
      message: `Arguments as JSON ${style.dim('(an empty or unchanged line goes back; set VISUAL or EDITOR to use an editor)')}`,
      default: original,
      prefill: 'editable',
      validate: async (text) => {
        if (unchanged(text)) return true;
        const checked = await checkEdit(request, text, options);
        return checked.status === 'valid' ? true : checked.problem;
      },
    },
    { input: options.input, output: options.output, signal: options.signal },
  );
  if (unchanged(answer)) {
    options.output.write(style.dim('  no change: back to the choices\n'));
    return undefined;
  }
  const checked = await checkEdit(request, answer, options);
  return checked.status === 'valid' ? checked.parameters : undefined;
}

type CheckedEdit = { status: 'valid'; parameters: Record<string, unknown> } | { status: 'invalid'; problem: string };

/** Parses edited JSON and asks the engine whether it would accept it as the new arguments. */
async function checkEdit(
  request: UserInteractionRequest,
  text: string,
  options: EditArgumentsOptions,
): Promise<CheckedEdit> {
  let value: unknown;
  try {
    value = parseJsonStrictly(text);
  } catch (error) {
    return { status: 'invalid', problem: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { status: 'invalid', problem: 'the arguments must be a JSON object' };
  }
  const parameters = { ...value };
  const check = await options.checkResponse?.(request.interactionId, { approved: true, editedParameters: parameters });
  if (check !== undefined && !check.ok) return { status: 'invalid', problem: check.message };
  return { status: 'valid', parameters };
}

type EditorRun = { status: 'edited'; text: string } | { status: 'failed'; message: string };

/** Opens `text` in the editor (a command line such as `code --wait`) and returns what was saved. */
function runEditor(editor: string, text: string): EditorRun {
  const directory = mkdtempSync(join(tmpdir(), 'interlock-edit-'));
  const file = join(directory, 'arguments.json');
  try {
    writeFileSync(file, text);
    // The editor setting may carry its own flags, so the shell splits it; the file name is passed as "$1".
    const run = spawnSync('sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit' });
    if (run.error !== undefined)
      return { status: 'failed', message: `could not start ${editor}: ${run.error.message}` };
    if (run.status !== 0)
      return {
        status: 'failed',
        message: `${editor} exited with code ${run.status ?? run.signal ?? '?'}: the arguments were not changed`,
      };
    return { status: 'edited', text: readFileSync(file, 'utf8') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
