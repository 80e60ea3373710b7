/**
 * Types of json-schema-check.js: the page's modules and the tests both read them, and the
 * module checks its export against them.
 */
export function checkAgainstSchema(
  value: unknown,
  schema: Record<string, unknown> | boolean | undefined,
  path?: string,
): string[];
