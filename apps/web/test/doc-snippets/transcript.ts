import { expect } from 'vitest';

/**
 * A document's transcript and a real run, each made comparable: ids, times, temporary paths
 * and the user's name are what differ from run to run, so they become placeholders.
 */
export function normalized(text: string): string[] {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/\/tmp\/interlock-[\w-]+/g, '<temporary>')
    .replace(/\bcli:[^\s:"]+/g, 'cli:<user>')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '');
}

/**
 * Expects `actual` to show the transcript `expected`: its lines, in order, each run of them
 * together; a line `...` or `…` stands for any lines. Lines starting with `$ ` (the commands)
 * are left out: the caller ran them.
 */
export function expectTranscript(actual: string, expected: string): void {
  const lines = normalized(actual);
  const chunks: string[][] = [[]];
  for (const line of normalized(expected)) {
    if (line.startsWith('$ ')) continue;
    if (line.trim() === '...' || line.trim() === '…') chunks.push([]);
    else chunks.at(-1)?.push(line);
  }
  let from = 0;
  for (const chunk of chunks.filter((part) => part.length > 0)) {
    const at = indexOfRun(lines, chunk, from);
    expect(at, `the transcript's lines\n${chunk.join('\n')}\nin\n${lines.slice(from).join('\n')}`).not.toBe(-1);
    from = at + chunk.length;
  }
}

function indexOfRun(lines: string[], run: string[], from: number): number {
  for (let index = from; index + run.length <= lines.length; index += 1)
    if (run.every((line, offset) => lines[index + offset] === line)) return index;
  return -1;
}

/** The commands of a transcript (its `$ ` lines), as typed. */
export function commandsOf(transcript: string): string[] {
  return transcript
    .split('\n')
    .filter((line) => line.startsWith('$ '))
    .map((line) => line.slice(2));
}
