import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertTmux, ownDatabase, type OwnDatabase } from '@interlock/core/testing';
import { DOCS_SNIPPETS } from './doc-snippets/docs-snippets.js';
import { needsItsTest, snippets } from './doc-snippets/markdown.js';
import { README_SNIPPETS } from './doc-snippets/readme-snippets.js';
import { REPOSITORY, Sandbox } from './doc-snippets/sandbox.js';
import type { SnippetContext, SnippetEntry } from './doc-snippets/snippet-entry.js';

/*
 * The documents' snippets that configure a store or start a command run as written (issue
 * 34, F55): a snippet of README.md or docs/ that does carries a mark, `<!-- snippet: id -->`
 * on the line above its fence, and `id` has an entry here (doc-snippets/*-snippets.ts) with
 * the snippet's text and its run. A changed snippet whose entry did not change fails, so its
 * run is looked at again; an unmarked one fails, naming where it is. Runs are in a sandbox
 * outside the repository (doc-snippets/sandbox.ts) on the built commands, each PostgreSQL
 * one in a database of its own with a URL without a schema. Where a run cannot be verbatim,
 * its entry says why (a global install CI does, the build the tests run on, `--port 0` for a
 * server, the id of this run's question).
 */

const ENTRIES: Record<string, SnippetEntry> = { ...README_SNIPPETS, ...DOCS_SNIPPETS };
const FOUND = snippets(REPOSITORY);
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const context: SnippetContext = {
  snippet(id) {
    const found = FOUND.find((snippet) => snippet.id === id);
    if (found === undefined) throw new Error(`no snippet is marked ${id}`);
    return found.text;
  },
  async sandbox() {
    const box = await Sandbox.create();
    closers.push(() => box.close());
    return box;
  },
  async database(label) {
    const made: OwnDatabase = await ownDatabase(process.env['INTERLOCK_TEST_POSTGRES_URL'] ?? '', label);
    closers.push(() => made.drop());
    return made;
  },
};

describe("the documents' snippets that configure a store or start a command (issue 34)", () => {
  it('are each marked, each mark once, and each has its entry here; every entry has its snippet', () => {
    const unmarked = FOUND.filter((snippet) => snippet.id === undefined && needsItsTest(snippet));
    expect(unmarked.map((snippet) => `${snippet.file}:${snippet.line}`)).toEqual([]);
    const marks = FOUND.flatMap((snippet) => (snippet.id === undefined ? [] : [snippet.id]));
    expect(marks.filter((id, index) => marks.indexOf(id) !== index)).toEqual([]);
    expect([...marks].sort()).toEqual(Object.keys(ENTRIES).sort());
  });

  it.each(FOUND.filter((snippet) => snippet.id !== undefined).map((snippet) => [snippet.id ?? '', snippet] as const))(
    '%s: its entry has its text, or names the test that reads it',
    (id, snippet) => {
      const entry = ENTRIES[id];
      if (entry === undefined) throw new Error(`${snippet.file}:${snippet.line}: no entry for mark ${id}`);
      if ('coveredBy' in entry) {
        const file = entry.coveredBy.split(' ')[0] ?? '';
        if (file.includes('/')) {
          expect(existsSync(join(REPOSITORY, file))).toBe(true);
          expect(readFileSync(join(REPOSITORY, file), 'utf8')).toContain(snippet.file);
        } else expect(ENTRIES[file]).toHaveProperty('run');
      }
      if (entry.text !== undefined) expect(snippet.text, `${snippet.file}:${snippet.line}`).toBe(entry.text);
    },
  );

  const runs = Object.entries(ENTRIES).flatMap(([id, entry]) => ('run' in entry ? [[id, entry] as const] : []));
  it.each(runs)(
    '%s runs as written',
    async (id, entry) => {
      if (id.startsWith('cli-')) assertTmux();
      await entry.run(context.snippet(id), context);
    },
    180_000,
  );
});
