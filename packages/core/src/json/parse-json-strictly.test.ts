import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonStrictly } from './parse-json-strictly.js';

/** Issue 14, class 1 (ambiguous JSON) and class 4 (deep input): one reading or none. */
describe('parseJsonStrictly', () => {
  it.each([
    ['{"action":"reject","action":"approve"}', 'action'],
    ['{"a":{"b":1,"b":2}}', 'b'],
    ['[{"x":1},{"y":1,"y":1}]', 'y'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"input":{"approved":true},"input":{"approved":false}}', 'input'],
  ])('refuses %s: the key %s twice', (text, key) => {
    expect(() => parseJsonStrictly(text)).toThrow(
      expect.objectContaining({ code: 'JSON_INVALID', details: { problem: 'duplicate-key', key } }),
    );
  });

  it('keeps equal keys in different objects, and keys that only look alike', () => {
    expect(parseJsonStrictly('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
    expect(parseJsonStrictly('{"a":{"a":{"a":1}},"b":"\\"a\\""}')).toEqual({ a: { a: { a: 1 } }, b: '"a"' });
    expect(parseJsonStrictly('{"a":"x","A":"y","a ":"z"}')).toEqual({ a: 'x', A: 'y', 'a ': 'z' });
  });

  it('refuses deep nesting before reading it, however deep', () => {
    for (const depth of [65, 10_000, 1_000_000]) {
      expect(() => parseJsonStrictly(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toThrow(
        expect.objectContaining({ details: { problem: 'too-deep' } }),
      );
    }
    expect(parseJsonStrictly(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeDefined();
  });

  it('refuses a __proto__ key anywhere', () => {
    expect(() => parseJsonStrictly('{"input":{"__proto__":{"approved":true}}}')).toThrow(
      expect.objectContaining({ details: { problem: 'prototype-key', key: '__proto__' } }),
    );
  });

  it('reports a syntax error as JSON_INVALID', () => {
    expect(() => parseJsonStrictly('{"a":')).toThrow(
      expect.objectContaining({ code: 'JSON_INVALID', details: { problem: 'syntax' } }),
    );
  });

  it('reads every JSON value without duplicate keys as JSON.parse does (property)', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }).filter((value) => !JSON.stringify(value).includes('"__proto__"')),
        (value) => {
          const text = JSON.stringify(value);
          expect(parseJsonStrictly(text)).toEqual(JSON.parse(text));
        },
      ),
    );
  });

  it('never takes a text with a repeated key (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((key) => key !== '__proto__'),
          fc.jsonValue({ maxDepth: 2 }),
          { minKeys: 1 },
        ),
        fc.jsonValue({ maxDepth: 2 }),
        (object, other) => {
          const [key] = Object.keys(object);
          const text = `{${Object.entries(object)
            .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
            .join(',')},${JSON.stringify(key)}:${JSON.stringify(other)}}`;
          // Refused either way: as a repeated key, or earlier, for a `__proto__` key inside a value.
          expect(() => parseJsonStrictly(text)).toThrow(
            expect.objectContaining({
              code: 'JSON_INVALID',
              details: expect.objectContaining({ problem: expect.stringMatching(/^(duplicate-key|prototype-key)$/) }),
            }),
          );
          if (!text.includes('"__proto__"'))
            expect(() => parseJsonStrictly(text)).toThrow(
              expect.objectContaining({ details: expect.objectContaining({ problem: 'duplicate-key' }) }),
            );
        },
      ),
    );
  });
});
