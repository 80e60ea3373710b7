import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runBuiltCli } from './built-cli.js';

beforeAll(assertBuilt);

describe.concurrent('interlock explain', () => {
  // Needs the shell rules: until they land, every bash call asks (rule shell:unavailable).
  it('says rm -rf / is denied, with the banning rule, its reason and the path of rules', async () => {
    const run = await runBuiltCli(['explain', 'bash', '{"command":"rm -rf /"}']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /^deny: bash \{"command":"rm -rf \/"\} would be refused\n {2}rule {4}shell:banned:[a-z-]+\n {2}reason {2}banned command: /,
    );
    expect(run.stdout).toContain(
      '  path (the rules looked at, in order; the last one decided):\n    · approval:disabled',
    );
    expect(run.stdout).toMatch(/ {4}✘ shell:banned:[a-z-]+ +deny {3}banned command: /);
  });

  // Needs the shell rules.
  it('with --json prints exactly outcome, rule, reason and path for rm -rf /', async () => {
    const run = await runBuiltCli(['explain', 'bash', '{"command":"rm -rf /"}', '--json']);
    expect(run.exitCode).toBe(0);
    const decision = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(decision)).toEqual(['outcome', 'rule', 'reason', 'path']);
    expect(decision).toMatchObject({ outcome: 'deny', rule: expect.stringMatching(/^shell:banned:/) });
  });

  // Needs the shell rules: a high-risk command asks even in yolo mode.
  it('says a force push still asks in yolo mode', async () => {
    const run = await runBuiltCli([
      'explain',
      'bash',
      '{"command":"git push --force origin main"}',
      '--mode',
      'yolo',
      '--json',
    ]);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'ask', rule: expect.stringMatching(/^shell:high-risk:/) });
  });

  // Issue 37 (F24, F25): the shell writes outside the workspace only with a person, in yolo too.
  it.each([
    ['echo x >> /etc/passwd', 'shell:high-risk:outside-workspace'],
    ['truncate -s0 /etc/passwd', 'shell:high-risk:outside-workspace'],
    ['install -m 755 x /usr/local/bin/x', 'shell:high-risk:outside-workspace'],
    ["sed -i -e 's/x/y/' f /tmp/other.txt", 'shell:high-risk:outside-workspace'],
    ['split -l 1 key ~/.ssh/authorized_keys', /^shell:high-risk:(protected-path|outside-workspace)$/],
    ['cp key ~/.ssh/authorized_keys', /^shell:high-risk:(protected-path|outside-workspace)$/],
  ])('says %s asks even in yolo mode', async (command, rule) => {
    const run = await runBuiltCli(['explain', 'bash', JSON.stringify({ command }), '--mode', 'yolo', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'ask', rule });
  });

  it('says moving the home directory away is denied, like rm -rf ~', async () => {
    const run = await runBuiltCli(['explain', 'bash', '{"command":"mv ~ /tmp/gone"}', '--mode', 'yolo', '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'deny', rule: 'shell:banned:mv-home' });
  });

  // Needs the shell rules.
  it('judges a command by where it would run (--workspace)', async () => {
    const atRoot = await runBuiltCli(['explain', 'bash', '{"command":"rm -rf ."}', '--workspace', '/', '--json']);
    expect(JSON.parse(atRoot.stdout)).toMatchObject({ outcome: 'deny', rule: expect.stringMatching(/^shell:banned:/) });
    const inTmp = await runBuiltCli(['explain', 'bash', '{"command":"rm -rf ."}', '--workspace', tmpdir(), '--json']);
    expect(JSON.parse(inTmp.stdout)).toMatchObject({
      outcome: 'ask',
      rule: expect.stringMatching(/^shell:high-risk:/),
    });
  });

  it('says a read is allowed, by the read rule', async () => {
    const run = await runBuiltCli(['explain', 'read_file', '{"path":"README.md"}']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /^allow: read_file \{"path":"README\.md"\} would run without asking\n {2}rule {4}category:read\n/,
    );
    expect(run.stdout).toMatch(/ {4}✔ category:read +allow {2}read-only tool/);
  });

  it('with --json and --mode says a write asks by default and runs in autoEdit', async () => {
    const write = ['explain', 'write_file', '{"path":"NOTES.md","content":"hi"}', '--json'];
    const asked = await runBuiltCli(write);
    expect(asked.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(asked.stdout)).toMatchObject({
      outcome: 'ask',
      rule: 'ask:risk:MEDIUM',
      reason: expect.any(String),
      path: expect.any(Array),
    });
    const autoEdit = await runBuiltCli([...write, '--mode', 'autoEdit']);
    expect(JSON.parse(autoEdit.stdout)).toMatchObject({ outcome: 'allow', rule: 'mode:autoEdit' });
    expect(JSON.parse(autoEdit.stdout).path.at(-1)).toEqual({
      rule: 'mode:autoEdit',
      result: 'allow',
      reason: 'autoEdit mode runs writes',
    });
  });

  it('says an unknown tool is denied, and still exits 0', async () => {
    const run = await runBuiltCli(['explain', 'format_disk', '{}', '--json']);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: 'deny', rule: 'tool:not-found' });
  });

  it.each([
    [['explain', 'bash', '{"command":'], 'the arguments are not valid JSON'],
    [['explain', 'bash', '["ls"]'], 'the arguments must be a JSON object'],
    [['explain'], 'interlock explain needs a tool'],
    [['explain', 'bash', '{}', '--mode', 'fast'], 'use one of default, autoEdit, yolo'],
  ])('exits 2 for %j', async (args, message) => {
    const run = await runBuiltCli(args);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('See interlock explain --help.');
  });
});
