// A small JSON Schema check for the edit box: the keywords zod's JSON Schema output uses
// for tool parameters. The server checks again with the tool's own schema.
// The export's type is in json-schema-check.d.ts (the tests read it too); the `@type` below
// checks it against that.

/**
 * A schema as zod writes it: an object of keywords, or true (anything) or false (nothing).
 * @typedef {Record<string, unknown> | boolean} Schema
 */

/**
 * The keywords this check reads, as zod writes them. A schema is taken to be well-formed
 * (it comes from the server, which checks the arguments again anyway).
 * @typedef {{
 *   anyOf?: Schema[], oneOf?: Schema[], allOf?: Schema[],
 *   type?: string | string[], const?: unknown, enum?: unknown[],
 *   minLength?: number, maxLength?: number, pattern?: string,
 *   minimum?: number, maximum?: number, exclusiveMinimum?: number, exclusiveMaximum?: number,
 *   minItems?: number, maxItems?: number, items?: Schema | Schema[],
 *   properties?: Record<string, Schema>, required?: string[], additionalProperties?: Schema,
 * }} Keywords
 */

/**
 * Lists what is wrong with `value` against `schema`, as "path: problem" lines; empty when it fits.
 * @type {typeof import('./json-schema-check.js').checkAgainstSchema}
 */
export function checkAgainstSchema(value, schemaOrFlag, path = '(root)') {
  if (schemaOrFlag === undefined || schemaOrFlag === null || schemaOrFlag === true) return [];
  if (schemaOrFlag === false) return [`${path}: no value is allowed here`];
  const schema = /** @type {Keywords} */ (schemaOrFlag);
  /** @type {string[]} */
  const problems = [];
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const options = /** @type {Schema[]} */ (schema.anyOf ?? schema.oneOf);
    if (!options.some((option) => checkAgainstSchema(value, option, path).length === 0))
      problems.push(`${path}: does not match any of the allowed shapes`);
  }
  if (Array.isArray(schema.allOf))
    for (const part of schema.allOf) problems.push(...checkAgainstSchema(value, part, path));
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => hasType(value, type))) {
      problems.push(`${path}: expected ${types.join(' or ')}, got ${typeName(value)}`);
      return problems;
    }
  }
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value))
    problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push(`${path}: must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength)
      problems.push(`${path}: must have at least ${schema.minLength} character(s)`);
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength)
      problems.push(`${path}: must have at most ${schema.maxLength} character(s)`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      problems.push(`${path}: must match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      problems.push(`${path}: must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      problems.push(`${path}: must be at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      problems.push(`${path}: must be more than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
      problems.push(`${path}: must be less than ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      problems.push(`${path}: needs at least ${schema.minItems} item(s)`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      problems.push(`${path}: takes at most ${schema.maxItems} item(s)`);
    const { items } = schema;
    if (items !== undefined && !Array.isArray(items))
      value.forEach((item, index) => problems.push(...checkAgainstSchema(item, items, `${path}[${index}]`)));
  }
  if (isObject(value)) {
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) if (!(name in value)) problems.push(`${join(path, name)}: is required`);
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) problems.push(...checkAgainstSchema(item, properties[name], join(path, name)));
      else if (schema.additionalProperties === false)
        problems.push(`${join(path, name)}: is not a parameter of this tool`);
      else if (isObject(schema.additionalProperties))
        problems.push(...checkAgainstSchema(item, schema.additionalProperties, join(path, name)));
    }
  }
  return problems;
}

/**
 * @param {string} path
 * @param {string} name
 */
function join(path, name) {
  return path === '(root)' ? name : `${path}.${name}`;
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @param {unknown} value
 * @param {string} type
 */
function hasType(value, type) {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

/** @param {unknown} value */
function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
