import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A fenced code block of a document, with the id of its `<!-- snippet: id -->` mark. */
export interface DocSnippet {
  /** The document, relative to the repository (`docs/persistence.md`). */
  file: string;
  /** The line of the opening fence. */
  line: number;
  language: string;
  /** What is between the fences, as written. */
  text: string;
  /** The mark on the line just above the fence, when there is one. */
  id: string | undefined;
}

const FENCE = /^```(\w*)[^\n]*\n([\s\S]*?)^```/gm;
const MARK = /^<!-- snippet: ([a-z0-9-]+) -->$/;

/** README.md and every document under docs/. */
export function documents(repository: string): string[] {
  const found = ['README.md'];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory).sort()) {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.md')) found.push(relative(repository, path));
    }
  };
  walk(join(repository, 'docs'));
  return found;
}

/** Every fenced block of the documents, in order. */
export function snippets(repository: string): DocSnippet[] {
  const all: DocSnippet[] = [];
  for (const file of documents(repository)) {
    const text = readFileSync(join(repository, file), 'utf8');
    const lines = text.split('\n');
    for (const match of text.matchAll(FENCE)) {
      const line = text.slice(0, match.index).split('\n').length;
      all.push({
        file,
        line,
        language: match[1] ?? '',
        text: match[2] ?? '',
        id: markAbove(lines, line - 2),
      });
    }
  }
  return all;
}

/** The mark on the line above a fence (0-based `index`), blank lines between them allowed (Prettier adds one). */
function markAbove(lines: string[], index: number): string | undefined {
  let at = index;
  while (at > 0 && lines[at]?.trim() === '') at -= 1;
  return MARK.exec(lines[at] ?? '')?.[1];
}

/** A line that runs one of Interlock's commands (after a prompt `$ `, variables, a pipe into it). */
const COMMAND =
  /^\s*(?:\$ )?(?:[A-Z_]+=\S+ )*(?:printf .*\| )?(?:npx |pnpm exec )?(?:interlock(?:-web)?|node apps\/(?:cli|web)\/dist\/main\.js|node service\.mjs|pnpm (?:demo|demo:web|test)|npm install -g pnpm\S*|pnpm (?:install|build) &&)(?:\s|$)/m;
/** Code that opens a store or configures one. */
const STORE = /\b(?:createInterlock|createWorker|openStore|createTypeormStore)\s*\(|\bstore:\s*\{|^\[store\]/m;
/** Languages of what runs or configures; diagrams and prose blocks are not. */
const RUNNABLE = new Set(['sh', 'console', 'text', 'ts', 'js', 'toml', 'json']);

/**
 * Whether a snippet configures a store or starts a command (issue 34): such a snippet is
 * run by a test exactly as written, so it carries a mark naming that test's entry.
 */
export function needsItsTest(snippet: DocSnippet): boolean {
  return RUNNABLE.has(snippet.language) && (COMMAND.test(snippet.text) || STORE.test(snippet.text));
}
