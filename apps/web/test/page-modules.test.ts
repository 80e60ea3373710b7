import { describe, expect, it } from 'vitest';
// The page's plain ES modules, tested in Node (the functions below touch no DOM).
import { countBlankRuns, countInvisible, revealInvisible } from '../public/invisible-characters.js';
import { checkAgainstSchema } from '../public/json-schema-check.js';
import { latestOnly } from '../public/latest.js';

describe('revealInvisible', () => {
  it('marks right-to-left overrides, zero-width and tag characters, and leaves newlines, tabs and accents alone', () => {
    expect(revealInvisible('invoice\u202Efdp.exe')).toEqual([
      { text: 'invoice' },
      { invisible: '\u202E', label: 'U+202E' },
      { text: 'fdp.exe' },
    ]);
    expect(revealInvisible('a\u200Bb\uFEFF').map((part) => ('label' in part ? part.label : part.text))).toEqual([
      'a',
      'U+200B',
      'b',
      'U+FEFF',
    ]);
    expect(revealInvisible('rm\u{E0041}').at(-1)).toEqual({ invisible: '\u{E0041}', label: 'U+E0041' });
    expect(countInvisible('line one\n\tcafé ✓')).toBe(0);
  });
});

describe('long blank runs (issue 13)', () => {
  it('counts padding that would push the rest out of sight, and leaves indentation alone', () => {
    expect(revealInvisible(`ls${' '.repeat(200)}; rm -rf ~`)).toEqual([
      { text: 'ls' },
      { blanks: ' '.repeat(200), label: '200 spaces' },
      { text: '; rm -rf ~' },
    ]);
    expect(revealInvisible(`a${'\n '.repeat(5)}b`)[1]).toMatchObject({ label: '5 newlines, 5 spaces' });
    expect(
      revealInvisible(`a${' \t'.repeat(20)}\u200Bb`).map((part) => ('label' in part ? part.label : part.text)),
    ).toEqual(['a', '20 spaces, 20 tabs', 'U+200B', 'b']);
    expect(countBlankRuns('{\n  "code": "if x:\\n        return 1"\n}')).toBe(0);
    expect(countBlankRuns(`x${' '.repeat(23)}y`)).toBe(0);
  });
});

describe('checkAgainstSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1 },
      mode: { enum: ['a', 'b'] },
      lines: { type: 'array', items: { type: 'integer' } },
    },
    required: ['path'],
    additionalProperties: false,
  };

  it("accepts arguments that fit the tool's schema", () => {
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

describe('latestOnly: refreshes whose answers arrive out of order', () => {
  /** A load whose calls the test settles one by one, in the order it chooses. */
  function manualLoad() {
    const pending = new Map<string, { resolve: (value: string) => void; reject: (error: Error) => void }>();
    const load = (url: string) =>
      new Promise<string>((resolve, reject) => {
        pending.set(url, { resolve, reject });
      });
    return { load, pending };
  }

  it("draws the latest call's answer, never an older one that arrives after it", async () => {
    const { load, pending } = manualLoad();
    const fetchLatest = latestOnly(load);
    const older = fetchLatest('/api/interactions?tool=write_file');
    const newer = fetchLatest('/api/interactions');
    pending.get('/api/interactions')!.resolve('all pending');
    await expect(newer).resolves.toEqual({ value: 'all pending' });
    pending.get('/api/interactions?tool=write_file')!.resolve('filtered');
    await expect(older).resolves.toBeUndefined();
    const next = fetchLatest('/api/interactions');
    pending.get('/api/interactions')!.resolve('later');
    await expect(next).resolves.toEqual({ value: 'later' });
  });

  it("drops an older call's failure and reports the latest call's", async () => {
    const { load, pending } = manualLoad();
    const fetchLatest = latestOnly(load);
    const older = fetchLatest('/a');
    const newer = fetchLatest('/b');
    pending.get('/a')!.reject(new Error('network down'));
    await expect(older).resolves.toBeUndefined();
    pending.get('/b')!.reject(new Error('signed out'));
    await expect(newer).rejects.toThrow('signed out');
  });
});
