import { interpretInput, toInterlockError } from '@interlock/core';
import type { InputKind } from '@interlock/sdk-types';

/** What one line of standard input means as an answer. */
export type LineAnswer = { status: 'valid'; value: unknown } | { status: 'invalid'; problem: string };

/**
 * Reads one line as the answer to a question of the given kind. An empty line takes the
 * question's default when it has one. A choice accepts an option's value, its label, or
 * its number (1 for the first option). Confirm accepts yes/no/y/n/true/false.
 */
export function interpretLine(kind: InputKind, line: string): LineAnswer {
  const text = line.trim();
  if (text === '') {
    const fallback = defaultOf(kind);
    if (fallback !== undefined) return { status: 'valid', value: fallback };
    if (kind.kind !== 'text') return { status: 'invalid', problem: `the line is empty: ${describeAnswer(kind)}` };
  }
  if (kind.kind === 'choice') return interpretChoice(kind, text);
  try {
    return { status: 'valid', value: interpretInput(kind, text) };
  } catch (error) {
    return { status: 'invalid', problem: toInterlockError(error).message };
  }
}

/** How to answer a question of this kind, in a few words (`yes or no`, `one of: yes, no`). */
export function describeAnswer(kind: InputKind): string {
  switch (kind.kind) {
    case 'text':
      return kind.placeholder === undefined ? 'any text' : `any text (${kind.placeholder})`;
    case 'confirm':
      return 'yes or no';
    case 'choice':
      return `one of: ${kind.options.map((option, index) => `${index + 1}) ${labelOf(option)}`).join('  ')}`;
    case 'json':
      return 'a JSON value on one line';
  }
}

function interpretChoice(kind: Extract<InputKind, { kind: 'choice' }>, text: string): LineAnswer {
  const options = kind.options.map((option) =>
    typeof option === 'string' ? { value: option, label: option } : option,
  );
  const byValue = options.find((option) => option.value === text);
  const byLabel = options.find((option) => option.label.toLowerCase() === text.toLowerCase());
  const byNumber = /^\d+$/.test(text) ? options[Number(text) - 1] : undefined;
  const chosen = byValue ?? byLabel ?? byNumber;
  if (chosen) return { status: 'valid', value: chosen.value };
  return { status: 'invalid', problem: `expected ${describeAnswer(kind)}` };
}

function defaultOf(kind: InputKind): unknown {
  return kind.kind === 'json' ? undefined : kind.default;
}

function labelOf(option: string | { value: string; label: string }): string {
  return typeof option === 'string' ? option : option.label;
}
