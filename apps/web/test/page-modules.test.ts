import { describe, expect, it } from 'vitest';
// The page's plain ES modules, tested in Node (the functions below touch no DOM).
import { countInvisible, revealInvisible } from '../public/invisible-characters.js';
import { checkAgainstSchema } from '../public/json-schema-check.js';

describe('revealInvisible', () => {
  it('marks right-to-left overrides, zero-width and tag characters, and leaves newlines, tabs and accents alone', () => {
    expect(revealInvisible('invoice\u202Efdp.exe')).toEqual([{ text: 'invoice' }, { invisible: '\u202E', label: 'U+202E' }, { text: 'fdp.exe' }]);
    expect(revealInvisible('a\u200Bb\uFEFF').map((part) => ('label' in part ? part.label : part.text))).toEqual(['a', 'U+200B', 'b', 'U+FEFF']);
    expect(revealInvisible('rm\u{E0041}').at(-1)).toEqual({ invisible: '\u{E0041}', label: 'U+E0041' });
    expect(countInvisible('line one\n\tcafé ✓')).toBe(0);
  });
});

describe('checkAgainstSchema', () => {
  const schema = {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 }, mode: { enum: ['a', 'b'] }, lines: { type: 'array', items: { type: 'integer' } } },
    required: ['path'],
    additionalProperties: false,
  };

  it('accepts arguments that fit the tool\'s schema', () => {
    expect(checkAgainstSchema({ path: 'README.md', mode: 'a', lines: [1, 2] }, schema)).toEqual([]);
  });

  it('names each problem with its path', () => {
    expect(checkAgainstSchema({ path: '', mode: 'c', lines: [1.5], extra: 1 }, schema)).toEqual([
      'path: must have at least 1 character(s)',
      'mode: must be one of "a", "b"',
      'lines[0]: expected integer, got a number',
      'extra: is not a parameter of this tool',
    ]);
    expect(checkAgainstSchema({}, schema)).toEqual(['path: is required']);
    expect(checkAgainstSchema([], schema)).toEqual(['(root): expected object, got an array']);
  });
});
