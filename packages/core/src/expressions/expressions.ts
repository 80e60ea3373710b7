import { Environment } from '@marcbachmann/cel-js';
import { InterlockError } from '../errors/interlock-error.js';
import { LINEAR_MATCHES, linearMatches, withLinearMatches } from './linear-matches.js';

/**
 * Expressions are CEL (https://cel.dev), evaluated by @marcbachmann/cel-js.
 * Templates embed expressions in text as `{{ expr }}`; a template that is exactly one
 * `{{ expr }}` keeps the expression's type (`{{ input == 'yes' }}` is a boolean).
 */

const TEMPLATE_PART = /\{\{([\s\S]*?)\}\}/g;
const SINGLE_EXPRESSION = /^\s*\{\{([\s\S]*?)\}\}\s*$/;

type Compiled = (context: Record<string, unknown>) => unknown;

const runtime = withLinearRegex(
  new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false }),
);

/** `matches()` in linear time: see ./linear-matches.ts. */
function withLinearRegex(environment: Environment): Environment {
  return environment.registerFunction(`${LINEAR_MATCHES}(string, string): bool`, linearMatches);
}
const cache = new Map<string, Compiled>();

function compile(expression: string): Compiled {
  let compiled = cache.get(expression);
  if (!compiled) {
    try {
      compiled = runtime.parse(withLinearMatches(expression, (source) => runtime.parse(source) as never)) as Compiled;
    } catch (error) {
      throw new InterlockError('EXPRESSION_INVALID', `cannot parse expression \`${expression}\`: ${firstLine(error)}`, {
        cause: error,
      });
    }
    cache.set(expression, compiled);
  }
  return compiled;
}

/** Evaluates one CEL expression against the variables given. */
export function evaluateExpression(expression: string, variables: Readonly<Record<string, unknown>>): unknown {
  const compiled = compile(expression);
  try {
    return fromCel(compiled(toCel(variables) as Record<string, unknown>));
  } catch (error) {
    throw new InterlockError('EXPRESSION_FAILED', `expression \`${expression}\` failed: ${firstLine(error)}`, {
      cause: error,
    });
  }
}

/** Renders a template: text with `{{ expr }}` parts. A lone `{{ expr }}` keeps its type. */
export function renderTemplate(template: string, variables: Readonly<Record<string, unknown>>): unknown {
  const single = SINGLE_EXPRESSION.exec(template)?.[1];
  if (single !== undefined && !single.includes('{{')) return evaluateExpression(single.trim(), variables);
  return template.replace(TEMPLATE_PART, (_match, expression: string) =>
    stringify(evaluateExpression(expression.trim(), variables)),
  );
}

/** A ROUTE condition: plain CEL, or CEL wrapped in `{{ }}`. Truthy only when it is `true`. */
export function evaluateCondition(condition: string, variables: Readonly<Record<string, unknown>>): boolean {
  return renderTemplate(asTemplate(condition), variables) === true;
}

/** The expressions a template contains, for static checks. */
export function templateExpressions(template: string): string[] {
  return [...template.matchAll(TEMPLATE_PART)].map((match) => (match[1] ?? '').trim());
}

/** The expression of a condition, with any `{{ }}` wrapping removed. */
export function conditionExpression(condition: string): string {
  return SINGLE_EXPRESSION.exec(condition)?.[1]?.trim() ?? condition.trim();
}

function asTemplate(condition: string): string {
  return `{{ ${conditionExpression(condition)} }}`;
}

/**
 * Checks an expression statically against the names that will be in scope. Returns an
 * error message, or undefined when the expression is fine.
 */
export function checkExpression(expression: string, names: Iterable<string>): string | undefined {
  const environment = withLinearRegex(
    new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false }),
  );
  for (const name of new Set(names)) environment.registerVariable(name, 'dyn');
  try {
    const result = environment.check(withLinearMatches(expression, (source) => environment.parse(source) as never)) as {
      valid: boolean;
      error?: unknown;
    };
    return result.valid ? undefined : firstLine(result.error);
  } catch (error) {
    return firstLine(error);
  }
}

/** Converts a value for display inside text. */
export function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  // A function or a symbol: neither comes out of JSON or CEL.
  return '';
}

// CEL has distinct int and double types; JavaScript has one number. Whole numbers go in as
// ints (so `count + 1` works) and every number comes back as a JavaScript number.
function toCel(value: unknown): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(toCel);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  return value;
}

function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), fromCel(item)]));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fromCel(item)]));
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/** Every string inside a value (nested objects and lists too), with its path, e.g. `files[0].path`. */
export function stringsIn(value: unknown, path = ''): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsIn(item, `${path}[${index}]`));
  if (isPlainObject(value))
    return Object.entries(value).flatMap(([key, item]) => stringsIn(item, path ? `${path}.${key}` : key));
  return [];
}

/** Renders every string inside a value as a template (nested objects and lists too). */
export function renderDeep(value: unknown, variables: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') return renderTemplate(value, variables);
  if (Array.isArray(value)) return value.map((item) => renderDeep(item, variables));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderDeep(item, variables)]));
  return value;
}
