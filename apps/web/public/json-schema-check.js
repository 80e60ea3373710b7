// A small JSON Schema check for the edit box: the keywords zod's JSON Schema output uses
// for tool parameters. The server checks again with the tool's own schema.

/**
 * Lists what is wrong with `value` against `schema`, as "path: problem" lines; empty when it fits.
 * @param {unknown} value
 * @param {Record<string, unknown> | undefined} schema
 * @returns {string[]}
 */
export function checkAgainstSchema(value, schema, path = '(root)') {
  if (schema === undefined || schema === null || schema === true) return [];
  if (schema === false) return [`${path}: no value is allowed here`];
  const problems = [];
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const options = schema.anyOf ?? schema.oneOf;
    if (!options.some((option) => checkAgainstSchema(value, option, path).length === 0)) problems.push(`${path}: does not match any of the allowed shapes`);
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) problems.push(...checkAgainstSchema(value, part, path));
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => hasType(value, type))) {
      problems.push(`${path}: expected ${types.join(' or ')}, got ${typeName(value)}`);
      return problems;
    }
  }
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push(`${path}: must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) problems.push(`${path}: must have at least ${schema.minLength} character(s)`);
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) problems.push(`${path}: must have at most ${schema.maxLength} character(s)`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${path}: must match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${path}: must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${path}: must be at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) problems.push(`${path}: must be more than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) problems.push(`${path}: must be less than ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) problems.push(`${path}: needs at least ${schema.minItems} item(s)`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) problems.push(`${path}: takes at most ${schema.maxItems} item(s)`);
    if (schema.items !== undefined && !Array.isArray(schema.items)) value.forEach((item, index) => problems.push(...checkAgainstSchema(item, schema.items, `${path}[${index}]`)));
  }
  if (isObject(value)) {
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) if (!(name in value)) problems.push(`${join(path, name)}: is required`);
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) problems.push(...checkAgainstSchema(item, properties[name], join(path, name)));
      else if (schema.additionalProperties === false) problems.push(`${join(path, name)}: is not a parameter of this tool`);
      else if (isObject(schema.additionalProperties)) problems.push(...checkAgainstSchema(item, schema.additionalProperties, join(path, name)));
    }
  }
  return problems;
}

function join(path, name) {
  return path === '(root)' ? name : `${path}.${name}`;
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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

function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
