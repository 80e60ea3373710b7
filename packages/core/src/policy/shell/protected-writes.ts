import { protectedReach, protectedWrite } from '../protected-paths.js';
import { reachedThroughLinks } from './reached-paths.js';
import type { AnalysisContext } from './analysis-context.js';
import { excerpt } from './excerpt.js';
import type { ShellWord } from './shell-word.js';

/** Programs whose operands are files they create, change or remove. */
const WRITERS = new Set([
  'cp',
  'mv',
  'tee',
  'install',
  'ln',
  'rsync',
  'touch',
  'truncate',
  'rm',
  'rmdir',
  'chmod',
  'chown',
  'chgrp',
  'unlink',
  'shred',
  'patch',
  'mkdir',
]);
/** Programs that write the file named by one of these options. */
const OUTPUT_OPTIONS: Record<string, readonly string[]> = {
  curl: ['-o', '--output'],
  wget: ['-O', '--output-document'],
  sort: ['-o', '--output'],
};

/** The words of a run that name files it writes. */
function writtenBy(name: string, args: readonly ShellWord[]): string[] {
  const texts = args.filter((arg) => arg.exact).map((arg) => arg.text);
  if (WRITERS.has(name)) return texts.filter((text) => !text.startsWith('-'));
  if (name === 'sed' && texts.some((text) => /^-[a-zA-Z]*i/.test(text) || text.startsWith('--in-place')))
    return texts.filter((text) => !text.startsWith('-'));
  if (name === 'dd') return texts.filter((text) => text.startsWith('of=')).map((text) => text.slice('of='.length));
  const options = OUTPUT_OPTIONS[name];
  if (!options) return [];
  return texts.flatMap((text, index) => {
    const inline = options.find((option) => option.startsWith('--') && text.startsWith(`${option}=`));
    if (inline) return [text.slice(inline.length + 1)];
    return options.includes(text) && texts[index + 1] !== undefined ? [texts[index + 1] as string] : [];
  });
}

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

/** Checks the files a run of `name` would write against the protected paths. */
export function checkProtectedWrites(name: string, args: readonly ShellWord[], context: AnalysisContext): void {
  for (const path of writtenBy(name, args)) reportProtectedWrite(path, `${name} writes`, context);
}
