import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ThreadNotes, type ThreadNote } from './thread-notes.js';

const NOTE: ThreadNote = {
  workflowPath: '/flows/ask.toml',
  workspaceRoot: '/work',
  mode: 'autoEdit',
  model: 'openai:gpt-4o-mini',
  baseUrl: 'http://localhost:11434/v1',
};

describe('ThreadNotes', () => {
  let directory = '';
  afterEach(async () => {
    if (directory !== '') await rm(directory, { recursive: true, force: true });
  });

  it('keeps one file per thread beside the store and reads it back', async () => {
    directory = await mkdtemp(join(tmpdir(), 'interlock-notes-'));
    const notes = new ThreadNotes(directory);
    expect(await notes.remember('7f0c-1', NOTE)).toBe(true);
    expect(await new ThreadNotes(directory).recall('7f0c-1')).toEqual(NOTE);
    expect(JSON.parse(await readFile(join(directory, 'threads', '7f0c-1.json'), 'utf8'))).toEqual(NOTE);
    expect(await notes.recall('another')).toBeUndefined();
  });

  it('gives nothing for a memory store, an id that is not a file name, or a note that is not one', async () => {
    directory = await mkdtemp(join(tmpdir(), 'interlock-notes-'));
    expect(await new ThreadNotes(undefined).remember('t', NOTE)).toBe(false);
    expect(await new ThreadNotes(undefined).recall('t')).toBeUndefined();
    const notes = new ThreadNotes(directory);
    expect(await notes.remember('../escape', NOTE)).toBe(false);
    await notes.remember('broken', NOTE);
    await writeFile(join(directory, 'threads', 'broken.json'), '{"workflowPath":"/x","mode":"fast"}');
    expect(await notes.recall('broken')).toBeUndefined();
  });
});
