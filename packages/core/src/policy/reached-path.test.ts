import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentTool,
  builtinTools,
  createInterlock,
  createShellClassifier,
  writeFileTool,
  type Interlock,
} from '../index.js';

/*
 * Issue 24, item 3, from the attacker's side: a repository (with a planted .git/config and
 * hooks directory) whose workspace holds symlinks that lead outside it, into `.git`, into
 * a shell startup file, through `..` after a link, to paths that do not exist yet, and in a
 * loop. Every check holds for the path a write really reaches.
 */
let base: string;
let workspace: string;
let outside: string;
const opened: Interlock[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'interlock-reached-'));
  workspace = join(base, 'workspace');
  outside = join(base, 'outside');
  await mkdir(join(outside, 'deeper', 'dir'), { recursive: true });
  await mkdir(join(workspace, 'a', 'b'), { recursive: true });
  execFileSync('git', ['init', '-q', workspace]);
  await writeFile(join(workspace, '.git', 'config'), '[core]\n\tbare = false\n[alias]\n\tst = !touch pwned\n');
  await symlink(outside, join(workspace, 'out'));
  await symlink('.git/hooks', join(workspace, 'hooks'));
  await symlink('../.git', join(workspace, 'a', 'repo'));
  await symlink(join(outside, 'deeper', 'dir'), join(workspace, 'inner'));
  await symlink('a/b', join(workspace, 'tricky'));
  await symlink('.git/hooks/post-checkout', join(workspace, 'dangling'));
  await symlink(join(workspace, '.bashrc'), join(workspace, 'startup'));
  await symlink('loop2', join(workspace, 'loop1'));
  await symlink('loop1', join(workspace, 'loop2'));
  await symlink('/', join(workspace, 'rootlink'));
});
afterAll(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
  await rm(base, { recursive: true, force: true });
});

async function interlockIn(mode: 'default' | 'yolo'): Promise<Interlock> {
  const interlock = await createInterlock({
    tools: builtinTools,
    workspaceRoot: workspace,
    approval: { mode },
    toolFallback: (name) => agentTool(name, workspace),
  });
  opened.push(interlock);
  return interlock;
}

describe('paths a write really reaches (issue 24)', () => {
  it.each([
    ['out/x', /out\/x reaches .*outside\/x through a symlink, outside the workspace/],
    ['out/new/dir/file.txt', /reaches .*outside\/new\/dir\/file\.txt through a symlink/],
    ['inner/../x', /reaches .*outside\/deeper\/x through a symlink/],
    ['tricky/../../../x', /outside the workspace|leaves the workspace/],
    ['loop1/x', /cannot be resolved: it goes through a symlink loop/],
    ['rootlink/etc/passwd', /reaches \/etc\/passwd through a symlink/],
  ])('denies a file write to %s, which leaves the workspace, in yolo too (F24)', async (path, reason) => {
    const decision = (await interlockIn('yolo')).explain({ toolName: 'write_file', arguments: { path, content: 'x' } });
    expect(decision).toMatchObject({ outcome: 'deny', rule: 'path:outside-workspace' });
    expect(decision.reason).toMatch(reason);
  });

  it.each([
    ['hooks/pre-commit', 'git', '.git/hooks/pre-commit'],
    ['a/repo/config', 'git', '.git/config'],
    ['dangling', 'git', '.git/hooks/post-checkout'],
    ['startup', 'shell-startup', '.bashrc'],
    ['a/b/../repo/hooks/x', 'git', '.git/hooks/x'],
  ])(
    'asks about a file write to %s, which reaches a protected path, in yolo too (F24)',
    async (path, kind, reached) => {
      const decision = (await interlockIn('yolo')).explain({
        toolName: 'write_file',
        arguments: { path, content: 'x' },
      });
      expect(decision).toMatchObject({ outcome: 'ask', rule: `path:protected:${kind}` });
      expect(decision.reason).toContain(`${path} reaches ${reached}`);
    },
  );

  it("decides an agent's Write (mcp serve) on the resolved path and says so (F50)", async () => {
    const interlock = await interlockIn('yolo');
    const write = (file_path: string) =>
      interlock.explain({ toolName: 'Write', arguments: { file_path, content: 'x' } });
    expect(write(join(workspace, 'hooks', 'pre-commit'))).toMatchObject({
      outcome: 'ask',
      rule: 'path:protected:git',
      reason: expect.stringContaining('hooks/pre-commit reaches .git/hooks/pre-commit'),
    });
    expect(write(join(workspace, 'out', 'x'))).toMatchObject({ outcome: 'deny', rule: 'path:outside-workspace' });
    // `..` after a symlink is kept for the rules, not normalised away.
    expect(write(`${join(workspace, 'inner')}/../x`)).toMatchObject({
      outcome: 'deny',
      rule: 'path:outside-workspace',
    });
    expect(write(join(workspace, 'notes.md'))).toMatchObject({ outcome: 'allow' });
  });

  it('refuses, when it runs, a write through a symlink into a protected path nobody approved, and one that leaves (F24)', async () => {
    const context = {
      threadId: 't',
      nodeId: 'n',
      toolCallId: 'c',
      signal: new AbortController().signal,
      fence: { threadId: 't', epoch: 1 },
      workspaceRoot: workspace,
    };
    // Decided as an ordinary path (the link appeared after the decision): refused when it runs.
    await expect(writeFileTool.execute({ path: 'hooks/post-merge', content: 'id' }, context)).rejects.toThrow(
      /reaches .*\.git\/hooks\/post-merge.*through a symlink/,
    );
    expect(existsSync(join(workspace, '.git', 'hooks', 'post-merge'))).toBe(false);
    await expect(writeFileTool.execute({ path: 'out/x', content: 'x' }, context)).rejects.toThrow(
      /a symlink leads out of the workspace/,
    );
    await expect(writeFileTool.execute({ path: 'inner/../escaped', content: 'x' }, context)).rejects.toThrow(/refused/);
    expect(existsSync(join(outside, 'deeper', 'escaped'))).toBe(false);
    // A person who approved it, having been shown where it reaches, gets the write.
    await writeFileTool.execute(
      { path: 'hooks/post-merge', content: 'approved' },
      { ...context, approval: { responder: 'ada' } },
    );
    expect(await readFile(join(workspace, '.git', 'hooks', 'post-merge'), 'utf8')).toBe('approved');
  });

  it('sees shell writes through symlinks: into .git, a startup file, and rm -r of a link to / (F25)', async () => {
    const shell = await createShellClassifier();
    const at = { cwd: workspace };
    expect(shell.classify('echo id > hooks/pre-push', at).rule).toBe('shell:high-risk:protected-path');
    expect(shell.classify('tee -a startup < notes', at).rule).toBe('shell:high-risk:protected-path');
    expect(shell.classify('cp payload a/repo/config', at).rule).toBe('shell:high-risk:protected-path');
    expect(shell.classify('echo x > loop1/y', at).verdict).toBe('high-risk');
    expect(shell.classify('rm -rf rootlink/', at).rule).toBe('shell:banned:rm-root');
    expect(shell.classify('echo x > notes.txt', at).rule).toBe('shell:redirect');
  });
});
