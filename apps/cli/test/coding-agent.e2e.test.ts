import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBuiltCli, type CliRun } from './built-cli.js';

beforeAll(assertBuilt);

const NOTES = '# Notes\n\n- The README describes a small demo project.\n- Next: list the files, then clean up.\n';

/** The temporary workspaces the runs created, removed after each test. */
const workspaces: string[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

/** The workspace `interlock demo coding-agent` printed, remembered for clean-up. */
function workspaceOf(run: CliRun): string {
  const directory = /^Workspace: (\S+)/m.exec(run.stdout)?.[1];
  if (directory === undefined) throw new Error(`no "Workspace:" line in:\n${run.stdout}\n${run.stderr}`);
  workspaces.push(directory);
  return directory;
}

describe('interlock demo coding-agent with answers piped in', () => {
  // Needs the shell rules: rm -rf / must be denied by policy (shell:banned:…) rather than asked.
  it('asks about the write and the ls only, denies rm -rf /, writes NOTES.md when approved and sums up', async () => {
    const run = await runBuiltCli(['demo', 'coding-agent'], 'y\nn: not today\n');
    const workspace = workspaceOf(run);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('read_file(README.md) → allow (rule category:read)');
    expect(run.stdout).toMatch(/bash\(rm -rf \/\) → deny \(rule shell:banned:[a-z-]+\)/);
    expect(run.stdout).toContain(
      '2 tool calls wait for you:\n  1. write_file(NOTES.md) · write · risk MEDIUM\n  2. bash(ls -la) · command · risk HIGH\n',
    );
    expect(run.stdout).toContain('> y\n  → approved\n');
    expect(run.stdout).toContain('> n: not today\n  → rejected: not today\n');
    expect(await readFile(join(workspace, 'NOTES.md'), 'utf8')).toBe(NOTES);
    expect(run.stdout).toMatch(
      /Output:\nDone\. Ran: read_file README\.md, write_file NOTES\.md\.\nRefused: bash `ls -la` \(the user rejected it: not today\); bash `rm -rf \/` \(denied by policy \(shell:banned:[a-z-]+\)\)\./,
    );
    expect(run.stdout).toContain('Audit: 4 tool-call decisions (2 allowed, 2 denied) · hash chain intact');
  });

  it('lists the waiting calls first, then asks one call at a time and runs only what was approved', async () => {
    // A third line answers rm -rf / if it is asked about; once the shell rules deny it, the line is never read.
    const run = await runBuiltCli(['demo', 'coding-agent'], 'y\nn: not today\nn: never\n');
    const workspace = workspaceOf(run);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /\d tool calls wait for you:\n {2}1\. write_file\(NOTES\.md\) · write · risk MEDIUM\n {2}2\. bash\(ls -la\)/,
    );
    expect(run.stdout.indexOf('tool calls wait for you')).toBeLessThan(run.stdout.indexOf('Tool call (1 of'));
    expect(run.stdout).toContain('? Allow write_file to run with these arguments?');
    expect(run.stdout).toContain('category write · risk MEDIUM · asked by rule ask:risk:MEDIUM');
    expect(run.stdout).toContain(
      '"content": "# Notes\\n\\n- The README describes a small demo project.\\n- Next: list the files, then clean up.\\n"',
    );
    expect(run.stdout).toContain(
      '  bash(ls -la) ✘ EXECUTION_REJECTED: This call was not run: the user rejected it: not today.',
    );
    expect(run.stdout).not.toContain('bash(ls -la) ▶ running');
    expect(run.stdout).not.toContain('bash(rm -rf /) ▶ running');
    expect((await readdir(workspace)).sort()).toEqual(['NOTES.md', 'README.md']);
    expect(run.stdout).toContain(
      'Done. Ran: read_file README.md, write_file NOTES.md.\nRefused: bash `ls -la` (the user rejected it: not today); bash `rm -rf /`',
    );
  });

  it('takes edited arguments and an instruction for the model, and refuses an edit the tool cannot take', async () => {
    const lines = [
      'edit {"path": "NOTES.md"}',
      'edit {"path": "docs/NOTES.md", "content": "edited"}',
      'i: only list, never delete',
      'n',
      '',
    ];
    const run = await runBuiltCli(['demo', 'coding-agent'], lines.join('\n'));
    const workspace = workspaceOf(run);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(
      /"edit \{\\"path\\": \\"NOTES\.md\\"\}" is not an answer: .*content.*Reading the next line\./,
    );
    expect(run.stdout).toContain('→ approved with edited arguments {"path":"docs/NOTES.md","content":"edited"}');
    expect(await readFile(join(workspace, 'docs', 'NOTES.md'), 'utf8')).toBe('edited');
    expect(run.stdout).toContain('Noted your instruction: "only list, never delete".');
  });

  it('leaves the thread waiting (exit 3) and never approves when input runs out, saying how to answer', async () => {
    const run = await runBuiltCli(['demo', 'coding-agent'], '');
    const workspace = workspaceOf(run);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain(
      'interlock: no answer for the tool call write_file(NOTES.md): standard input has no more lines; it stays pending.',
    );
    expect(run.stderr).toContain("printf 'y\\nn: not now\\n' | interlock demo coding-agent");
    expect(run.stderr).toMatch(/The thread is left waiting for an answer \(thread [0-9a-f-]{36}\)/);
    expect(await readdir(workspace)).toEqual(['README.md']);
  });
});

describe('interlock run examples/workflows/coding-agent.toml', () => {
  let workspace: string;
  const createWorkspace = async (): Promise<string> => {
    workspace = await mkdtemp(join(tmpdir(), 'interlock-e2e-workspace-'));
    workspaces.push(workspace);
    await writeFile(join(workspace, 'README.md'), '# A project\n');
    return workspace;
  };

  it('with --mode yolo writes without asking', async () => {
    const run = await runBuiltCli(
      ['run', 'examples/workflows/coding-agent.toml', '--mode', 'yolo', '--workspace', await createWorkspace()],
      'n\nn\n',
    );
    expect(run.stdout).toContain('write_file(NOTES.md) → allow (rule mode:yolo)');
    expect(run.stdout).not.toContain('Allow write_file');
    expect(await readFile(join(workspace, 'NOTES.md'), 'utf8')).toBe(NOTES);
  });

  // Needs the shell rules: in yolo, ls -la is provably safe (runs) and rm -rf / is banned (denied), so nothing asks.
  it('with --mode yolo asks nothing in this demo: the safe ls runs and rm -rf / is denied', async () => {
    const run = await runBuiltCli(
      ['run', 'examples/workflows/coding-agent.toml', '--mode', 'yolo', '--workspace', await createWorkspace()],
      '',
    );
    expect(run.exitCode).toBe(0);
    expect(run.stdout).not.toContain('wait for you');
    expect(run.stdout).not.toContain('? Allow');
    expect(run.stdout).toContain('bash(ls -la) → allow (rule mode:yolo)');
    expect(run.stdout).toMatch(/bash\(rm -rf \/\) → deny \(rule shell:banned:[a-z-]+\)/);
    expect(run.stdout).toContain('Done. Ran: read_file README.md, write_file NOTES.md, bash `ls -la`.');
  });

  it('reads from the --workspace directory, and refuses one that does not exist (exit 2)', async () => {
    const missing = await runBuiltCli(
      ['run', 'examples/workflows/coding-agent.toml', '--workspace', '/nonexistent/interlock'],
      '',
    );
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--workspace /nonexistent/interlock: no such directory');
    const run = await runBuiltCli(
      ['run', 'examples/workflows/coding-agent.toml', '--workspace', await createWorkspace()],
      'y\nn\nn\n',
    );
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('read_file(README.md) ✔ SUCCESS: # A project');
  });

  it('refuses an unknown --mode or --model, and OpenAI or Anthropic without a key, as usage errors (exit 2)', async () => {
    const mode = await runBuiltCli(['run', 'examples/workflows/coding-agent.toml', '--mode', 'auto']);
    expect(mode.exitCode).toBe(2);
    expect(mode.stderr).toContain('use one of default, autoEdit, yolo');
    const model = await runBuiltCli(['run', 'examples/workflows/coding-agent.toml', '--model', 'gpt-4o']);
    expect(model.exitCode).toBe(2);
    expect(model.stderr).toContain('use scripted, openai:<model> (e.g. openai:gpt-4o-mini) or anthropic:<model>');
    const keyless = await runBuiltCli(
      ['run', 'examples/workflows/coding-agent.toml', '--model', 'openai:gpt-4o-mini'],
      '',
      15_000,
      { OPENAI_API_KEY: '' },
    );
    expect(keyless.exitCode).toBe(2);
    expect(keyless.stderr).toContain('needs OPENAI_API_KEY in the environment');
    const anthropicKeyless = await runBuiltCli(
      ['run', 'examples/workflows/coding-agent.toml', '--model', 'anthropic:claude-sonnet-4-5'],
      '',
      15_000,
      { ANTHROPIC_API_KEY: '' },
    );
    expect(anthropicKeyless.exitCode).toBe(2);
    expect(anthropicKeyless.stderr).toContain('needs ANTHROPIC_API_KEY in the environment');
  });

  it('validates', async () => {
    const run = await runBuiltCli(['validate', 'examples/workflows/coding-agent.toml']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(
      'valid: examples/workflows/coding-agent.toml (workflow "coding-agent" version 1, 3 nodes)',
    );
  });
});
