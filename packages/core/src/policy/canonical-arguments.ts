import { hash } from 'node:crypto';
import { canonicalJson } from '@interlock/receipts';
import { InterlockError } from '../errors/interlock-error.js';

/** Bounds on a tool call's arguments, checked before anything recurses into them. */
export const ARGUMENT_LIMITS = { maxDepth: 64, maxValues: 100_000, maxCharacters: 10_000_000 } as const;

/**
 * Why `value` is not a tool call's arguments as a person can approve them, or undefined.
 * Arguments are JSON values only — no NaN, ±Infinity, -0, undefined, Map, Set, Date, class
 * instances, functions, symbol keys, holes or cycles — within {@link ARGUMENT_LIMITS}
 * (a cycle is refused as too deep). Iterative: any depth is refused without recursion.
 */
export function argumentsProblem(value: unknown): string | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '(root)' }];
  let values = 0;
  let characters = 0;
  while (stack.length > 0) {
    const { value: item, depth, path } = stack.pop() as { value: unknown; depth: number; path: string };
    if ((values += 1) > ARGUMENT_LIMITS.maxValues) return `more than ${ARGUMENT_LIMITS.maxValues} values`;
    if (depth > ARGUMENT_LIMITS.maxDepth) return `nested deeper than ${ARGUMENT_LIMITS.maxDepth} levels (at ${path})`;
    switch (typeof item) {
      case 'string':
        if ((characters += item.length) > ARGUMENT_LIMITS.maxCharacters)
          return `more than ${ARGUMENT_LIMITS.maxCharacters} characters`;
        continue;
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(item)) return `${String(item)} at ${path} is not a JSON number`;
        if (Object.is(item, -0)) return `-0 at ${path}: write 0`;
        continue;
      case 'object':
        break;
      default:
        return `${typeof item} at ${path} is not a JSON value`;
    }
    if (item === null) continue;
    if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index -= 1) {
        if (!(index in item)) return `a hole at ${path}[${index}]`;
        stack.push({ value: item[index], depth: depth + 1, path: `${path}[${index}]` });
      }
      continue;
    }
    const prototype = Object.getPrototypeOf(item) as unknown;
    if (prototype !== Object.prototype && prototype !== null) {
      // Object.create(prototype) makes objects without a constructor.
      const { constructor } = item as { constructor?: { name?: string } };
      return `${constructor?.name ?? 'an object'} at ${path} is not a JSON value (only objects, arrays, strings, numbers, booleans and null)`;
    }
    if (Object.getOwnPropertySymbols(item).length > 0) return `a symbol key at ${path}`;
    for (const [key, child] of Object.entries(item))
      stack.push({ value: child, depth: depth + 1, path: `${path}.${key}` });
  }
  return undefined;
}

/** Throws TOOL_ARGUMENTS_INVALID when `value` is not plain JSON arguments (see {@link argumentsProblem}). */
export function assertJsonArguments(value: unknown): void {
  const problem = argumentsProblem(value);
  if (problem !== undefined)
    throw new InterlockError('TOOL_ARGUMENTS_INVALID', `the arguments are not plain JSON: ${problem}`, {
      details: { problem },
    });
}

/** JSON with object keys sorted at every level: equal arguments give equal text (one definition, in @interlock/receipts, F63). */
export { canonicalJson };

/**
 * SHA-256 (hex) of the canonical JSON of the arguments: equal exactly when the JSON values
 * are equal. @throws InterlockError TOOL_ARGUMENTS_INVALID for anything but plain JSON
 * (NaN, -0, undefined, a Map… would otherwise share a hash with another value).
 */
export function hashArguments(value: unknown): string {
  assertJsonArguments(value);
  return hash('sha256', canonicalJson(value), 'hex');
}
