import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPOSITORY_ROOT, runBuiltCli } from './built-cli.js';

beforeAll(assertBuilt);

/** Issue 16: the project file, read by every command, checked by `interlock config check`. */

const EXAMPLE = join(REPOSITORY_ROOT, 'examples', 'interlock.toml');

async function projectDirectory(text: string, name = 'interlock.toml'): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-project-'));
  await writeFile(join(directory, name), text);
  return directory;
}

describe.concurrent('interlock config check', () => {
  it('passes the checked-in example', async () => {
    const run = await runBuiltCli(['config', 'check', EXAMPLE]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('valid');
  });

  it('lists every error with its key, and nothing starts', async () => {
    const directory = await projectDirectory('colour = "blue"\n[approval]\nmode = "YOLO"\nmemoryWindow = "forever"\n');
    const run = await runBuiltCli(['config', 'check'], '', 15_000, {}, directory);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/error \(root\): unknown key colour/);
    expect(run.stderr).toMatch(/error approval\.mode: /);
    expect(run.stderr).toMatch(/error approval\.memoryWindow: /);
    const explain = await runBuiltCli(['explain', 'read_file', '{"path":"a"}'], '', 15_000, {}, directory);
    expect(explain.exitCode).toBe(1);
    expect(explain.stderr).toContain('INVALID_OPTIONS');
  });

  it('refuses what createInterlock would: an unknown tool, a shell on the safe list, an allow-everything rule', async () => {
    const directory = await projectDirectory(
      '[approval]\ntoolOverrides = { Bash = false }\nallowRules = ["true"]\n[approval.shell]\nsafePrograms = ["sh"]\n',
    );
    const run = await runBuiltCli(['config', 'check'], '', 15_000, {}, directory);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/Bash|bash|sh|allows every call/);
  });

  it('warns about risky entries but passes', async () => {
    const directory = await projectDirectory('[approval]\nmode = "yolo"\napprovalTools = ["bash"]\n');
    const run = await runBuiltCli(['config', 'check'], '', 15_000, {}, directory);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/warning approval\.mode: yolo/);
    expect(run.stdout).toMatch(/warning approval\.approvalTools\[0\]: bash is whitelisted/);
  });
});

describe.concurrent('every command reads the project file', () => {
  it('explain decides by the file in the current directory and says which entry decided', async () => {
    const run = await runBuiltCli([
      'explain',
      'bash',
      '{"command":"terraform destroy -auto-approve"}',
      '--json',
      '--config',
      EXAMPLE,
    ]);
    expect(JSON.parse(run.stdout)).toMatchObject({
      outcome: 'deny',
      rule: 'deny-rule:0',
      source: `${EXAMPLE}: approval.denyRules[0]`,
    });
    const text = await runBuiltCli(['explain', 'bash', '{"command":"kubectl apply -f x.yaml"}', '--config', EXAMPLE]);
    expect(text.stdout).toContain(`decided by: ${EXAMPLE}: approval.shell.extraHighRisk[0]`);
  });

  it('takes the mode from the file, a --mode flag as a later layer, and --no-config reads none', async () => {
    const directory = await projectDirectory(
      '[approval]\nmode = "autoEdit"\ndenyRules = [\'tool == "write_file" && args.path == "LICENSE"\']\n',
    );
    const write = (path: string, extra: string[] = []) =>
      runBuiltCli(
        ['explain', 'write_file', JSON.stringify({ path, content: 'x' }), '--json', ...extra],
        '',
        15_000,
        {},
        directory,
      );
    expect(JSON.parse((await write('notes.md')).stdout)).toMatchObject({ outcome: 'allow', rule: 'mode:autoEdit' });
    expect(JSON.parse((await write('notes.md', ['--mode', 'default'])).stdout)).toMatchObject({ outcome: 'ask' });
    // The flag sets the mode; it cannot lift the file's deny.
    expect(JSON.parse((await write('LICENSE', ['--mode', 'yolo'])).stdout)).toMatchObject({
      outcome: 'deny',
      rule: 'deny-rule:0',
    });
    expect(JSON.parse((await write('notes.md', ['--no-config'])).stdout)).toMatchObject({ outcome: 'ask' });
  });

  it('refuses --config without a file as a usage error', async () => {
    const run = await runBuiltCli(['explain', 'read_file', '{}', '--config']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--config needs the project file');
  });
});
