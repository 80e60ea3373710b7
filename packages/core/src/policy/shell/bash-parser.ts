import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';

/** A bash parser backed by tree-sitter-bash (WebAssembly, no native build). */
export interface BashParser {
  /** Parses a command line; the caller must `delete()` the tree when done. */
  parse(text: string): Tree;
}

let language: Promise<Language> | undefined;

/** Loads tree-sitter-bash once per process; the same grammar serves every parser. */
function loadBashLanguage(): Promise<Language> {
  language ??= (async () => {
    await Parser.init();
    // Resolved through the package so it works from src (vitest) and from dist alike.
    const wasmPath = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
    return Language.load(wasmPath);
  })();
  language.catch(() => {
    language = undefined;
  });
  return language;
}

/**
 * Creates a bash parser.
 *
 * @throws when the tree-sitter runtime or the bash grammar cannot be loaded.
 */
export async function createBashParser(): Promise<BashParser> {
  const language = await loadBashLanguage();
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse(text) {
      const tree = parser.parse(text);
      if (tree === null) throw new Error('tree-sitter-bash returned no tree');
      return tree;
    },
  };
}
