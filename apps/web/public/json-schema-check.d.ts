/** Types of json-schema-check.js, for the tests that import it. */
export function checkAgainstSchema(value: unknown, schema: Record<string, unknown> | boolean | undefined, path?: string): string[];
