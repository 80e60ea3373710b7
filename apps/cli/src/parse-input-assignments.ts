import { parseJsonStrictly } from '@interlock/core';
import { UsageError } from './usage-error.js';

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Turns `--input` values into a thread's input: `key=value` sets a string, `key:=json`
 * sets a parsed JSON value (`count:=3`, `tags:=["a","b"]`).
 *
 * @throws UsageError when an assignment has no `=`, a bad name, a repeated name or bad JSON.
 */
export function parseInputAssignments(assignments: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    if (equals === -1) {
      throw new UsageError(
        `--input ${JSON.stringify(assignment)} has no "=": write --input key=value (or key:=json)`,
        'run',
      );
    }
    const typed = assignment[equals - 1] === ':';
    const name = assignment.slice(0, typed ? equals - 1 : equals);
    const text = assignment.slice(equals + 1);
    if (!VARIABLE_NAME.test(name)) {
      throw new UsageError(
        `--input ${JSON.stringify(assignment)}: "${name}" is not a variable name (letters, digits, _)`,
        'run',
      );
    }
    if (Object.hasOwn(input, name)) throw new UsageError(`--input sets "${name}" twice`, 'run');
    input[name] = typed ? parseJson(name, text) : text;
  }
  return input;
}

function parseJson(name: string, text: string): unknown {
  try {
    return parseJsonStrictly(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`--input ${name}:=… is not valid JSON (${reason}); for a string write ${name}=…`, 'run');
  }
}
