import { protectedReach, protectedWrite } from '../protected-paths.js';
import { reachedThroughLinks } from './reached-paths.js';
import type { AnalysisContext } from './analysis-context.js';
import { excerpt } from './excerpt.js';
import type { ShellWord } from './shell-word.js';
import { isHarmlessTarget, outsideWorkspace } from './workspace-paths.js';
import { writtenWords } from './written-paths.js';

/**
 * Adds a finding for a write to a protected path: Interlock's store is banned, the rest
 * high-risk (asks in every mode). The path the write really reaches counts too: a symlink
 * anywhere along it is followed (issue 24).
 */
export function reportProtectedWrite(path: string, how: string, context: AnalysisContext): void {
  const reached = reachedThroughLinks(path, context.paths);
  const loop = reached.find((reading) => reading.problem !== undefined);
  if (loop)
    context.findings.add(
      'high-risk',
      'shell:high-risk:protected-path',
      `${how} ${excerpt(path)}, which cannot be resolved: ${loop.problem ?? ''}`,
    );
  const found =
    protectedWrite(path) ??
    reached.map((reading) => protectedReach(path, reading.absolute)).find((reach) => reach !== undefined);
  if (!found) return;
  if (found.kind === 'interlock')
    context.findings.add('banned', 'shell:banned:interlock-store', `${how} ${excerpt(path)}: ${found.reason}`);
  else context.findings.add('high-risk', 'shell:high-risk:protected-path', `${how} ${excerpt(path)}: ${found.reason}`);
}

/**
 * Judges one path a command writes like a file tool's path (issue 37): a protected place
 * (above), or outside the workspace — high-risk, so it asks in every mode, yolo included. A
 * path only known when it runs cannot be judged: it asks in every mode too, unless what is
 * known of it already leads out of the workspace (`$HOME/x`).
 */
export function reportWrite(word: Pick<ShellWord, 'text' | 'exact'>, how: string, context: AnalysisContext): void {
  const path = word.text;
  if (word.exact && isHarmlessTarget(path)) return;
  reportProtectedWrite(path, how, context);
  const known = word.exact ? path : knownPrefix(path);
  const outside = known === undefined ? undefined : outsideWorkspace(known, context.paths);
  if (outside !== undefined) {
    const where = context.paths.workspaceRoot ?? context.paths.cwds[0];
    const reaches = outside === path ? '' : ` (it reaches ${excerpt(outside)})`;
    context.findings.add(
      'high-risk',
      'shell:high-risk:outside-workspace',
      `${how} ${excerpt(path)}${reaches}, outside the workspace${where === undefined ? '' : ` ${excerpt(where)}`}`,
    );
  } else if (!word.exact) {
    context.findings.add('ask', 'shell:expansion', `${how} ${excerpt(path)}, a path only known when it runs`);
  }
}

/**
 * What is known of a path with an expansion in it: all of it when the only expansion is the
 * home directory (`$HOME/x`), else the directory before the first expansion when it starts
 * at `/` or home (`/etc/$X` → `/etc`), else nothing (`out/$X` may climb anywhere).
 */
function knownPrefix(path: string): string | undefined {
  const home = /^(~|\$HOME|\$\{HOME\})(?=\/|$)/.exec(path)?.[0] ?? '';
  const rest = path.slice(home.length);
  const dynamic = rest.search(/[$`]/);
  if (dynamic < 0) return path;
  const head = home + rest.slice(0, dynamic).replace(/\/[^/]*$/, '');
  if (home !== '') return head;
  return head.startsWith('/') ? head || '/' : rest.startsWith('/') ? '/' : undefined;
}

/** Checks every file a run of `name` would write: protected places, and the workspace. */
export function checkWrites(name: string, args: readonly ShellWord[], context: AnalysisContext): void {
  for (const word of writtenWords(name, args)) reportWrite(word, `${name} writes`, context);
}
