import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { OwnDatabase } from '@interlock/core/testing';
import { REPOSITORY, type Ran, type Sandbox } from './sandbox.js';

/** What a snippet's run may use: a sandbox, databases of its own, the other snippets. */
export interface SnippetContext {
  /** Another snippet's text, by its mark. */
  snippet(id: string): string;
  /** A new sandbox, closed after the run. */
  sandbox(): Promise<Sandbox>;
  /** A PostgreSQL database of the run's own (its URL has no schema), dropped after it. */
  database(label: string): Promise<OwnDatabase>;
}

/**
 * A marked snippet's test: the snippet as the document has it (a change to the document
 * that is not made here too fails, so its run is looked at again) and its run; or the test
 * that reads it from the document and runs it verbatim (with `text` when that test is here).
 */
export type SnippetEntry =
  { text: string; run(text: string, context: SnippetContext): Promise<void> } | { text?: string; coveredBy: string };

/** The repository's `package.json` script a `pnpm <name>` line runs. */
export function script(name: string): string {
  const scripts = (
    JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const found = scripts[name];
  if (found === undefined) throw new Error(`package.json has no script "${name}"`);
  return found;
}

/**
 * The part of a `pnpm <name>` script after its build (`turbo run build … && `): the tests run
 * on a build made before them, so the rest is what the line runs here.
 */
export function afterBuild(name: string): string {
  const [build, rest] = script(name).split(' && ');
  expect(build).toMatch(/^turbo run build\b/);
  if (rest === undefined) throw new Error(`pnpm ${name} runs nothing after its build`);
  return rest;
}

/** Expects a command line to have ended with `code`, showing its output when it did not. */
export function expectExit(ran: Ran, code: number): void {
  expect(ran.code, `exit ${ran.code}\nstdout:\n${ran.stdout}\nstderr:\n${ran.stderr}`).toBe(code);
}

/** Reads a sign-in from `interlock-web`'s start: its port and the token it printed. */
export const WEB_STARTED = /Interlock web inbox: http:\/\/[^:]+:(\d+)\/[\s\S]*\n\n {2}(\S+)\n\n/;

/** A GET of the web API, signed in with `token`. */
export async function getApi(port: string, token: string, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}
