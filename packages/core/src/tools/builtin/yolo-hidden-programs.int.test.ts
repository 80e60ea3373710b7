import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedInYolo } from '../../__fixtures__/yolo-bash.js';

/*
 * Issue 24, item 2, end to end through the bash tool in yolo: commands that hide a program
 * in an argument, run the project's scripts, or run a program the repository's planted
 * configuration names never run without a person. Each would create a marker file.
 */
let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'interlock-yolo-hidden-'));
  await writeFile(join(workspace, 'notes.txt'), 'hello\n');
  await writeFile(
    join(workspace, 'package.json'),
    JSON.stringify({ name: 'planted', version: '1.0.0', scripts: { test: 'touch marker-npm' } }),
  );
  execFileSync('git', ['init', '-q', workspace]);
  // A planted repository configuration: an alias, and a pager for `git log`.
  execFileSync('git', ['-C', workspace, 'config', 'alias.st', '!touch marker-alias']);
  execFileSync('git', ['-C', workspace, 'config', 'pager.log', 'touch marker-pager; cat']);
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

const COMMANDS: [string, string][] = [
  ["sed 's/.*/touch marker-sed/e' notes.txt", 'marker-sed'],
  ['awk \'BEGIN { system("touch marker-awk") }\'', 'marker-awk'],
  ['find . -maxdepth 0 -fprint marker-find', 'marker-find'],
  ['tar -cf /dev/null notes.txt --checkpoint=1 --checkpoint-action=exec="touch marker-tar"', 'marker-tar'],
  ['npm test', 'marker-npm'],
  ["git -c alias.x='!touch marker-c' x", 'marker-c'],
  ['git st', 'marker-alias'],
  ['git --paginate log', 'marker-pager'],
];

describe('yolo through the bash tool (issue 24)', () => {
  it('asks a person before any command that hides what it runs, and runs none of them when refused (F22, F25)', async () => {
    const calls = await refusedInYolo(
      workspace,
      COMMANDS.map(([command]) => command),
      { id: 'yolo-hidden', reason: 'not without reading it' },
    );
    expect(calls.map((call) => call.toolParameters['command'])).toEqual(COMMANDS.map(([command]) => command));
    expect(calls.every((call) => call.rule === 'shell:hidden-effect')).toBe(true);
    for (const [, marker] of COMMANDS) expect(existsSync(join(workspace, marker)), marker).toBe(false);
  });
});
