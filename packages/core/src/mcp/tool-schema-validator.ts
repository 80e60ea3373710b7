/**
 * JSON Schema checks of what MCP servers send (issue 24): a tool's input schema, and the
 * output schema the SDK's client checks results against. A server is not trusted, so:
 *
 * - each schema is compiled on its own, in an Ajv instance of its own: two tools whose
 *   schemas share an `$id` are never checked against each other's (Ajv caches by `$id`);
 * - `pattern` and `patternProperties` run on a linear-time engine (re2js): `^(a+)+$` on
 *   model-written text cannot stall the process. A pattern RE2 cannot run (look-around,
 *   back-references) makes the schema uncompilable, and a tool whose schema does not
 *   compile refuses every call;
 * - a schema larger or deeper than {@link SCHEMA_LIMITS} is not compiled at all.
 *
 * @module
 */
import { Ajv, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import { argumentsProblem } from '../policy/canonical-arguments.js';

/** Bounds on a schema from a server, checked before it is compiled. */
export const SCHEMA_LIMITS = { maxCharacters: 262_144, maxDepth: 32 } as const;

/** What checking a value gave: the SDK's `JsonSchemaValidator` shape. */
export interface SchemaCheck {
  valid: boolean;
  data?: unknown;
  errorMessage?: string | undefined;
}

/** The SDK client's `jsonSchemaValidator` option, and Interlock's own input checks. */
export interface LinearSchemaValidator {
  getValidator(schema: unknown): (value: unknown) => SchemaCheck;
}

type RegExpEngine = ((pattern: string, flags: string) => { test(text: string): boolean }) & { code: string };

/** ECMAScript `pattern`s run as RE2 (linear time); throws for what RE2 cannot run, so the schema does not compile. */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const regex = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
    return { test: (text: string) => regex.matcher(text).find() };
  },
  { code: 'linearRegExp' },
);

const addFormats = ((formatsModule as unknown as { default?: typeof formatsModule }).default ??
  formatsModule) as unknown as (ajv: Ajv) => Ajv;

/** Why a schema may not be compiled (too large, too deep, not JSON), or undefined. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'it is not a JSON object';
  const notJson = argumentsProblem(schema);
  if (notJson !== undefined) return notJson;
  if (JSON.stringify(schema).length > SCHEMA_LIMITS.maxCharacters)
    return `it is longer than ${SCHEMA_LIMITS.maxCharacters} characters`;
  if (depthOf(schema) > SCHEMA_LIMITS.maxDepth) return `it is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`;
  return undefined;
}

/** Compiles one schema in a fresh Ajv; throws with the reason when it cannot be compiled. */
export function compileSchema(schema: unknown): ValidateFunction {
  const problem = schemaProblem(schema);
  if (problem !== undefined) throw new Error(problem);
  const ajv = new Ajv({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: false,
    code: { regExp: linearRegExp },
  });
  addFormats(ajv);
  return ajv.compile(schema as Record<string, unknown>);
}

/**
 * A validator for the SDK's client and Interlock's checks: every schema compiled on its own
 * with linear-time patterns. A schema that does not compile refuses every value.
 */
export const linearSchemaValidator: LinearSchemaValidator = {
  getValidator(schema) {
    let validate: ValidateFunction;
    try {
      validate = compileSchema(schema);
    } catch (error) {
      const message = `the schema cannot be checked (${error instanceof Error ? error.message : String(error)})`;
      return () => ({ valid: false, errorMessage: message });
    }
    return (value) => {
      if (validate(value)) return { valid: true, data: value };
      const [first] = validate.errors ?? [];
      return {
        valid: false,
        errorMessage:
          first === undefined
            ? 'does not match the schema'
            : `${first.instancePath || '(root)'} ${first.message ?? ''}`,
      };
    };
  },
};

/** How deep a JSON value nests, without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop() as { value: unknown; depth: number };
    deepest = Math.max(deepest, depth);
    if (typeof item !== 'object' || item === null) continue;
    for (const child of Object.values(item)) stack.push({ value: child, depth: depth + 1 });
  }
  return deepest;
}
