import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedInYolo } from '../../__fixtures__/yolo-bash.js';

/*
 * Issue 37, end to end through the bash tool in yolo (F24, F25): the shell never writes
 * outside the workspace unseen. Each command would write, move, change or remove a file of a
 * directory next to the workspace; a person is asked about every one (and refuses), so the
 * directory is as it was. A write inside the workspace still runs without asking.
 */
let root: string;
let workspace: string;
let outside: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'interlock-yolo-outside-'));
  workspace = join(root, 'workspace');
  outside = join(root, 'outside');
  for (const directory of [workspace, outside]) await mkdir(directory);
  await writeFile(join(workspace, 'notes.txt'), 'x\n');
  await writeFile(join(outside, 'passwd'), 'root:x:0:0\n');
  await writeFile(join(outside, 'other.txt'), 'x\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

const commands = (): string[] => [
  `echo x >> ${outside}/passwd`,
  `truncate -s0 ${outside}/passwd`,
  `install -m 755 notes.txt ${outside}/tool`,
  `split -l 1 notes.txt ${outside}/part`,
  `sed -i -e 's/x/y/' notes.txt ${outside}/other.txt`,
  'cp notes.txt ../outside/copied',
  `mv notes.txt ${outside}/moved`,
  `tee ${outside}/teed < notes.txt`,
  `dd if=notes.txt of=${outside}/dd`,
  `ln -s notes.txt ${outside}/link`,
  `chmod 600 ${outside}/passwd`,
  `rm ${outside}/other.txt`,
  'cd .. && touch outside/touched',
];

describe('yolo through the bash tool (issue 37)', () => {
  it('asks a person before any command that writes outside the workspace, and runs none of them when refused', async () => {
    const proposed = [...commands(), 'echo inside > inside.txt'];
    const calls = await refusedInYolo(workspace, proposed, { id: 'yolo-outside', reason: 'not outside the workspace' });
    expect(calls.map((call) => call.toolParameters['command'])).toEqual(commands());
    expect(calls.map((call) => call.rule)).toEqual(commands().map(() => 'shell:high-risk:outside-workspace'));
    expect(readdirSync(outside).sort()).toEqual(['other.txt', 'passwd']);
    expect(readFileSync(join(outside, 'passwd'), 'utf8')).toBe('root:x:0:0\n');
    expect(readFileSync(join(workspace, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(join(workspace, 'notes.txt'))).toBe(true);
  });
});
