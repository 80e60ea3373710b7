import { parseJsonStrictly } from '../json/parse-json-strictly.js';
import type { InputKind } from '@interlock/sdk-types';
import { InterlockError } from '../errors/interlock-error.js';

const YES = new Set(['y', 'yes', 'true', '1']);
const NO = new Set(['n', 'no', 'false', '0']);

/**
 * Turns a person's raw answer into the value the node works with, per the input kind:
 * confirm → boolean (accepts yes/no/y/n/true/false), choice → one of the options,
 * json → parsed JSON, text → string. Throws INTERACTION_INVALID_RESPONSE otherwise.
 */
export function interpretInput(kind: InputKind | undefined, raw: unknown): unknown {
  const invalid = (message: string) =>
    new InterlockError('INTERACTION_INVALID_RESPONSE', message, { details: { input: raw } });
  if (raw === undefined) throw invalid('the answer is empty: send an input value');
  switch (kind?.kind) {
    case undefined:
    case 'text':
      if (typeof raw === 'string') return raw;
      if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
      throw invalid(`expected text, got ${describe(raw)}`);
    case 'confirm': {
      if (typeof raw === 'boolean') return raw;
      const text = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim().toLowerCase() : '';
      if (YES.has(text)) return true;
      if (NO.has(text)) return false;
      throw invalid(`expected yes or no, got ${JSON.stringify(raw)}`);
    }
    case 'choice': {
      const values = kind.options.map((option) => (typeof option === 'string' ? option : option.value));
      if (typeof raw === 'string' && values.includes(raw)) return raw;
      throw invalid(
        `expected one of ${values.map((value) => JSON.stringify(value)).join(', ')}, got ${JSON.stringify(raw)}`,
      );
    }
    case 'json':
      if (typeof raw !== 'string') return raw;
      try {
        return parseJsonStrictly(raw);
      } catch (error) {
        throw invalid(`expected JSON: ${(error as Error).message}`);
      }
  }
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}
