import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBuiltCli } from './built-cli.js';

beforeAll(assertBuilt);

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('interlock demo with answers piped in', () => {
  it('completes when the plan is approved, printing the plan, the report and the summary', async () => {
    const run = await runBuiltCli(['demo'], 'yes\n');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Plan for "Add a --json flag to the report command":\n  1. ');
    expect(run.stdout).toContain('? Go ahead with this plan?');
    expect(run.stdout).toContain('> yes');
    expect(run.stdout).toContain('Done: carried out the approved plan');
    expect(run.stdout).toMatch(/✔ completed · 6 steps · thread [0-9a-f-]{36}\nOutput:\nPlan for "Add a --json flag/);
    expect(run.stdout).not.toContain('Revised plan');
  });

  it('revises the plan once when the first answer is no, then completes on yes', async () => {
    const run = await runBuiltCli(['demo'], 'no\nyes\n');
    expect(run.exitCode).toBe(0);
    expect(occurrences(run.stdout, '› revise (LLM)')).toBe(1);
    expect(occurrences(run.stdout, '? Go ahead with this plan?')).toBe(2);
    expect(run.stdout).toContain('approved = false');
    expect(run.stdout).toMatch(/✔ completed · 10 steps .*\nOutput:\nRevised plan \(revision 1\)/);
  });

  it('leaves the thread waiting with exit code 3 and says how to answer when stdin runs out', async () => {
    const run = await runBuiltCli(['demo'], '');
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain('no answer for the question at node "ask": standard input has no more lines');
    expect(run.stderr).toContain("printf 'yes\\n' | interlock demo");
    expect(run.stderr).toMatch(/The thread is left waiting for an answer \(thread [0-9a-f-]{36}\)/);
    expect(run.stdout).toContain('⏸ waiting for an answer');
    expect(run.stdout).not.toContain('approved = true');
    expect(run.stdout).not.toContain('› execute');
  });

  it('skips a line that is not an answer and never takes it as approval', async () => {
    const run = await runBuiltCli(['demo'], 'maybe\n');
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toContain('"maybe" is not an answer: expected one of: 1) yes  2) no');
    expect(run.stdout).not.toContain('› execute');
  });

  it('drafts the plan for the task given with --input', async () => {
    const run = await runBuiltCli(['demo', '--input', 'task=Ship dark mode'], 'yes\n');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Plan for "Ship dark mode":');
  });
});

describe('interlock run', () => {
  it('passes the answer to the next LLM node (ask-user.toml)', async () => {
    const run = await runBuiltCli(['run', 'examples/workflows/ask-user.toml'], 'Sichuan\n');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('added to the conversation: "I like Sichuan food."');
    const suggestion = run.stdout.slice(run.stdout.indexOf('› suggest (LLM)'));
    expect(suggestion).toMatch(/^› suggest \(LLM\)\n {2}You said: "I like Sichuan food\."/);
  });

  it('with --json prints only JSON lines, ending with the outcome, and asks on stderr', async () => {
    const run = await runBuiltCli(['run', 'examples/workflows/plan-approval.toml', '--json'], 'yes\n');
    expect(run.exitCode).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const types = lines.map((line) => line['type']);
    expect(types[0]).toBe('THREAD_STARTED');
    expect(types).toContain('LLM_TEXT_DELTA');
    expect(lines.find((line) => line['type'] === 'USER_INTERACTION_RESPONDED')).toMatchObject({
      nodeId: 'ask',
      input: 'yes',
    });
    expect(lines.at(-1)).toMatchObject({ type: 'OUTCOME', outcome: { status: 'completed' }, exitCode: 0 });
    expect(run.stderr).toContain('? Go ahead with this plan?');
  });

  it('with --json reports a thread left waiting as exit code 3 in the last line too', async () => {
    const run = await runBuiltCli(['run', 'examples/workflows/plan-approval.toml', '--json'], '');
    expect(run.exitCode).toBe(3);
    const last = JSON.parse(run.stdout.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ type: 'OUTCOME', outcome: { status: 'waiting' }, exitCode: 3 });
  });

  it('refuses an input the workflow does not declare, naming the declared ones (exit 2)', async () => {
    const run = await runBuiltCli(['run', 'examples/workflows/plan-approval.toml', '--input', 'nope=1'], '');
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('"nope" is not a declared thread or subgraph variable');
    expect(run.stderr).toContain('declared: task, plan, approved, revisions');
  });

  it('fails with exit code 1 when the workflow file does not exist', async () => {
    const run = await runBuiltCli(['run', 'examples/workflows/missing.toml'], '');
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('cannot read workflow file');
  });
});

describe.concurrent('interlock validate', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'interlock-validate-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('lists every error of a broken workflow with its path and exits 1', async () => {
    const path = join(directory, 'broken.toml');
    await writeFile(
      path,
      [
        'id = "broken"',
        'version = "1"',
        '[[nodes]]',
        'id = "ask"',
        'type = "USER_INTERACTION"',
        '[nodes.config]',
        'operationType = "UPDATE_VARIABLES"',
        'variables = []',
        'colour = "red"',
      ].join('\n'),
    );
    const run = await runBuiltCli(['validate', path]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/broken\.toml is not a valid workflow \(\d+ errors\)/);
    expect(run.stderr).toContain('\n  name: ');
    expect(run.stderr).toContain('\n  nodes[0].config.variables: UPDATE_VARIABLES needs at least one variable');
    expect(run.stderr).toContain('\n  nodes[0].config: Unrecognized key: "colour"');
    expect(run.stdout).not.toContain('valid');
  });

  it('lists the problems of the layout, the schema and the graph in one run (F1, issue 37)', async () => {
    const path = join(directory, 'many.toml');
    await writeFile(
      path,
      [
        'id = "many problems"',
        'name = "Many"',
        '[[config]]',
        'timeout = 1',
        '[[config]]',
        'timeout = 2',
        '[[nodes]]',
        'id = "start"',
        'type = "START"',
        '[[nodes]]',
        'id = "ask"',
        'type = "USER_INTERACTION"',
        '[nodes.config]',
        'operationType = "NOT_A_TYPE"',
        'prompt = "Which?"',
        '[[nodes]]',
        'id = "end"',
        'type = "END"',
        '[[edges]]',
        'from = "start"',
        'to = "nowhere"',
      ].join('\n'),
    );
    const run = await runBuiltCli(['validate', path]);
    expect(run.exitCode).toBe(1);
    for (const problem of [
      '\n  config: config is one table, not 2 [[config]] tables',
      '\n  id: expected an id',
      '\n  nodes[1].config.operationType: ',
      '\n  edges[0].to: unknown node "nowhere"',
      '\n  nodes[2]: node "end" is unreachable from START',
    ])
      expect(run.stderr).toContain(problem);
  });

  it('says a file that is not TOML is not valid TOML', async () => {
    const path = join(directory, 'garbled.toml');
    await writeFile(path, 'id = = "x"');
    const run = await runBuiltCli(['validate', path]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('(file): not valid TOML');
  });

  it('prints valid for a good workflow and exits 0', async () => {
    const run = await runBuiltCli(['validate', 'examples/workflows/plan-approval.toml']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^valid: examples\/workflows\/plan-approval\.toml/);
  });
});

describe.concurrent('interlock usage', () => {
  it('explains an unknown command and exits 2', async () => {
    const run = await runBuiltCli(['deploy']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'unknown command "deploy". Commands: run, demo, threads, pending, respond, resume, audit, explain, validate, worker, mcp, receipts, config.',
    );
    expect(run.stderr).toContain('See interlock --help.');
  });

  it('explains an unknown option of a command and exits 2', async () => {
    const run = await runBuiltCli(['run', 'flow.toml', '--yolo']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("Unknown option '--yolo'");
    expect(run.stderr).toContain('See interlock run --help.');
  });

  it('asks for the workflow file when run has none, and exits 2', async () => {
    const run = await runBuiltCli(['run']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('interlock run needs a workflow file');
  });

  it.each([
    [['--help']],
    [['run', '--help']],
    [['demo', '--help']],
    [['threads', '--help']],
    [['pending', '--help']],
    [['respond', '--help']],
    [['resume', '--help']],
    [['audit', '--help']],
    [['explain', '--help']],
    [['validate', '--help']],
    [['help', 'run']],
  ])('documents the exit codes in %j', async (args) => {
    const run = await runBuiltCli(args);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('Exit codes:');
    expect(run.stdout).toMatch(/^ {2}2 {4}usage error/m);
  });

  it('says in the help where threads are kept and how to answer them later', async () => {
    const run = await runBuiltCli(['--help']);
    expect(run.stdout).toContain('Threads are kept in the store (default: the SQLite file .interlock/interlock.db');
    expect(run.stdout).toContain('sqlite:<path>');
    expect(run.stdout).toContain('postgres://user:password@host:port/database[?schema=name]');
    expect(run.stdout).toMatch(/^ {2}3 {4}the thread is left waiting/m);
    expect(run.stdout).toMatch(/^ {2}4 {4}respond: the interaction was already answered/m);
    expect(run.stdout).toMatch(/^ {2}5 {4}respond: the interaction expired/m);
    expect(run.stdout).toMatch(/^ {2}130 {2}interrupted/m);
  });

  it('documents the exit codes of respond in its help', async () => {
    const run = await runBuiltCli(['respond', '--help']);
    for (const code of ['0', '1', '2', '3', '4', '5'])
      expect(run.stdout).toMatch(new RegExp(`^ {2}${code} {4}\\S`, 'm'));
  });
});
