import type { z } from 'zod';
import { argumentsProblem } from '../policy/canonical-arguments.js';

/** What a strict reading of edited arguments came to. */
export type StrictParse = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

/**
 * Reads arguments a person (or a callback) edited, strictly (issue 13): plain JSON values
 * only, matching the schema, and no property the schema does not know — a schema that
 * would drop an unknown key silently refuses it here, so what is approved is what runs.
 */
export function parseStrictly(schema: z.ZodType, edited: unknown): StrictParse {
  const problem = argumentsProblem(edited);
  if (problem !== undefined) return { ok: false, problem: `they are not plain JSON: ${problem}` };
  const parsed = schema.safeParse(edited);
  if (!parsed.success) {
    return {
      ok: false,
      problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '),
    };
  }
  const dropped = droppedKey(edited, parsed.data, '');
  if (dropped !== undefined) return { ok: false, problem: `${dropped}: the tool has no such property` };
  return { ok: true, value: parsed.data as Record<string, unknown> };
}

/** The first key of `input` its parsed form does not have (the input is known to be bounded JSON). */
function droppedKey(input: unknown, output: unknown, path: string): string | undefined {
  if (Array.isArray(input) && Array.isArray(output)) {
    for (const [index, item] of input.entries()) {
      const found = droppedKey(item, output[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(input) || !isObject(output)) return undefined;
  for (const [key, value] of Object.entries(input)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (!Object.prototype.hasOwnProperty.call(output, key)) return at;
    const found = droppedKey(value, output[key], at);
    if (found) return found;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
