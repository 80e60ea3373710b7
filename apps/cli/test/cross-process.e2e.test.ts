import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from './built-cli.js';
import { cliIn, createWorkingDirectory, EXAMPLES, jsonOf, pendingIn, type Detached } from './cross-process.js';
import { until } from '@interlock/core/testing';

beforeAll(assertBuilt);

const directories: string[] = [];
async function workingDirectory(): Promise<string> {
  const directory = await createWorkingDirectory();
  directories.push(directory);
  return directory;
}
afterAll(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

/** A workflow `id` that goes from its START straight to its END (`extra`: lines after its version): the TOML. */
function startToEnd(id: string, name: string, extra: string[] = []): string {
  return [
    `id = "${id}"`,
    `name = "${name}"`,
    'version = "1"',
    ...extra,
    '[[nodes]]',
    'id = "start"',
    'type = "START"',
    '[[nodes]]',
    'id = "end"',
    'type = "END"',
    '[[edges]]',
    'from = "start"',
    'to = "end"',
  ].join('\n');
}

describe('a thread started with run --detach is answered by other processes (default SQLite store)', () => {
  it('waits (exit 3), is listed by pending --json, finishes with respond (exit 0), and a second respond gets exit 4', async () => {
    const directory = await workingDirectory();

    const started = await cliIn(directory, ['run', 'ask.toml', '--detach', '--json']);
    expect(started.exitCode).toBe(3);
    const detached = jsonOf<Detached>(started);
    expect(detached).toMatchObject({ status: 'waiting', threadId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(detached.pendingInteractionIds).toHaveLength(1);
    expect(existsSync(join(directory, '.interlock', 'interlock.db'))).toBe(true);

    const pending = await pendingIn(directory);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      interactionId: detached.pendingInteractionIds[0],
      threadId: detached.threadId,
      nodeId: 'ask',
      operationType: 'UPDATE_VARIABLES',
      prompt: 'Ship it?',
      session: { channel: 'detached' },
    });

    const interactionId = pending[0]!.interactionId;
    const answered = await cliIn(directory, ['respond', interactionId, 'answer', 'yes']);
    expect(answered.stderr).toBe('');
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toContain(`✓ answered "yes" (interaction ${interactionId}, thread ${detached.threadId})`);
    expect(answered.stdout).toContain(`✔ completed`);
    expect(answered.stdout).toContain('Output:\nthe answer was yes');

    const again = await cliIn(directory, ['respond', interactionId, 'answer', 'no']);
    expect(again.exitCode).toBe(4);
    expect(again.stderr).toContain(`Interaction ${interactionId} was already answered`);
    const againJson = await cliIn(directory, ['respond', interactionId, 'answer', 'no', '--json']);
    expect(againJson.exitCode).toBe(4);
    expect(jsonOf(againJson)).toEqual({
      result: 'already_answered',
      interactionId,
      threadId: detached.threadId,
      answeredBy: expect.stringMatching(/^cli:/),
      answeredAt: expect.any(String),
      exitCode: 4,
    });

    expect(await pendingIn(directory)).toEqual([]);
    const threads = jsonOf<Array<Record<string, unknown>>>(await cliIn(directory, ['threads', '--json']));
    expect(threads).toEqual([
      expect.objectContaining({
        threadId: detached.threadId,
        workflowId: 'ask-once',
        status: 'completed',
        pendingInteractionIds: [],
        output: 'the answer was yes',
      }),
    ]);
  });

  it('runs on the channel --channel names, for another app to answer, and refuses a bad name or --detach with --channel cli (exit 2)', async () => {
    const directory = await workingDirectory();
    const started = await cliIn(directory, ['run', 'ask.toml', '--channel', 'web', '--json']);
    expect(started.exitCode).toBe(3);
    const [question] = await pendingIn(directory);
    expect(question).toMatchObject({ threadId: jsonOf<Detached>(started).threadId, session: { channel: 'web' } });
    expect((await cliIn(directory, ['respond', question?.interactionId ?? '', 'answer', 'yes'])).exitCode).toBe(0);

    const badName = await cliIn(directory, ['run', 'ask.toml', '--channel', 'a b']);
    expect(badName.exitCode).toBe(2);
    expect(badName.stderr).toContain('--channel "a b" is not a channel name');
    const contradiction = await cliIn(directory, ['run', 'ask.toml', '--channel', 'cli', '--detach']);
    expect(contradiction.exitCode).toBe(2);
    expect(contradiction.stderr).toContain('--detach and --channel cli contradict each other');
  });

  it('prints the new pending id when the answer leads to another question (exit 3), and --json says so', async () => {
    const directory = await workingDirectory();
    const started = await cliIn(directory, ['run', EXAMPLES.planApproval, '--detach']);
    expect(started.exitCode).toBe(3);
    expect(started.stdout).toContain('Plan for "Add a --json flag to the report command":');
    expect(started.stdout).toMatch(/⏸ waiting for an answer · \d+ steps · thread [0-9a-f-]{36}/);
    const [first] = await pendingIn(directory);
    expect(started.stdout).toContain(`interlock respond ${first!.interactionId} answer`);

    const no = await cliIn(directory, ['respond', first!.interactionId, 'answer', 'no', '--json']);
    expect(no.exitCode).toBe(3);
    const line = jsonOf<{ result: string; status: string; pendingInteractionIds: string[]; exitCode: number }>(no);
    expect(line).toMatchObject({ result: 'accepted', status: 'waiting', exitCode: 3 });
    const [second] = await pendingIn(directory);
    expect(line.pendingInteractionIds).toEqual([second!.interactionId]);
    expect(second!.interactionId).not.toBe(first!.interactionId);
    expect(second!.prompt).toContain('Revised plan (revision 1)');

    const yes = await cliIn(directory, ['respond', second!.interactionId, 'answer', 'yes']);
    expect(yes.exitCode).toBe(0);
    expect(yes.stdout).toContain('Done: carried out the approved plan');
    expect(yes.stdout).toMatch(/Output:\nRevised plan \(revision 1\)/);
  });

  it('exits 0 at once when the detached thread completes without asking', async () => {
    const directory = await workingDirectory();
    await writeFile(join(directory, 'quiet.toml'), startToEnd('quiet', 'Quiet'));
    const run = await cliIn(directory, ['run', 'quiet.toml', '--detach', '--json']);
    expect(run.exitCode).toBe(0);
    expect(jsonOf(run)).toMatchObject({ status: 'completed', pendingInteractionIds: [] });
  });

  it('says why a thread failed in the line of run --detach --json, as threads --json does (issue 34)', async () => {
    const directory = await workingDirectory();
    await writeFile(
      join(directory, 'short.toml'),
      startToEnd('short', 'Too short a leash', ['[config]', 'maxSteps = 1']),
    );
    const run = await cliIn(directory, ['run', 'short.toml', '--detach', '--json']);
    const line = jsonOf<{ threadId: string; status: string; error?: { code: string; message: string } }>(run);
    expect(line).toMatchObject({ status: 'failed', error: { code: 'MAX_STEPS_EXCEEDED' } });
    const threads = jsonOf<{ threadId: string; error?: unknown }[]>(await cliIn(directory, ['threads', '--json']));
    expect(threads.find((thread) => thread.threadId === line.threadId)?.error).toEqual(line.error);
  });

  it('keeps a demo left waiting when standard input runs out, so another process can answer it', async () => {
    const directory = await workingDirectory();
    const demo = await cliIn(directory, ['demo'], '');
    expect(demo.exitCode).toBe(3);
    expect(demo.stderr).toMatch(/The thread is left waiting for an answer \(thread [0-9a-f-]{36}\)/);
    expect(demo.stdout).toContain('Kept in sqlite:.interlock/interlock.db. From any terminal in this directory:');
    expect(demo.stdout).not.toContain('in memory');
    const [question] = await pendingIn(directory);
    expect(question).toMatchObject({ nodeId: 'ask', session: { channel: 'cli' } });
    const answered = await cliIn(directory, ['respond', question!.interactionId, 'answer', 'yes']);
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toContain('Done: carried out the approved plan');
  });
  it('refuses an answer after the deadline as expired (exit 5): nothing is applied and the thread reports the timeout', async () => {
    const directory = await workingDirectory();
    await writeFile(
      join(directory, 'timed.toml'),
      (await readFile(join(directory, 'ask.toml'), 'utf8')).replace(
        'prompt = "Ship it?"',
        'prompt = "Ship it?"\ntimeout = "5s"',
      ),
    );
    const detached = jsonOf<Detached>(await cliIn(directory, ['run', 'timed.toml', '--detach', '--json']));
    const [request] = await pendingIn(directory);
    expect(request?.deadline).not.toBeNull();
    // Cross-process deadlines are wall-clock times in the store: wait until this one has passed.
    await until(
      'the deadline to pass',
      () => Date.now(),
      (now) => now > Date.parse(request?.deadline ?? ''),
    );

    const late = await cliIn(directory, ['respond', detached.pendingInteractionIds[0]!, 'answer', 'too late']);
    expect(late.exitCode).toBe(5);
    expect(late.stderr).toContain('expired: its deadline passed, so the answer was refused and nothing ran for it');
    expect(late.stdout).toContain('failed (timeout): nobody answered before the deadline');
    const [thread] = jsonOf<Array<{ status: string; output?: unknown }>>(await cliIn(directory, ['threads', '--json']));
    expect(thread).toMatchObject({ status: 'failed' });
    expect(thread?.output).toBeUndefined();
  });
});

describe('tool approvals of the coding-agent demo, answered from other processes', () => {
  async function startAgent(): Promise<{ directory: string; workspace: string; detached: Detached }> {
    const directory = await workingDirectory();
    const workspace = join(directory, 'workspace');
    await mkdir(workspace);
    await writeFile(join(workspace, 'README.md'), '# A project\n');
    const started = await cliIn(directory, [
      'run',
      EXAMPLES.codingAgent,
      '--detach',
      '--workspace',
      workspace,
      '--json',
    ]);
    expect(started.exitCode).toBe(3);
    return { directory, workspace, detached: jsonOf<Detached>(started) };
  }

  it('lists both calls with tool, arguments, risk and rule; approve runs the write in the thread workspace; reject --reason finishes', async () => {
    const { directory, workspace, detached } = await startAgent();
    expect(detached.pendingInteractionIds).toHaveLength(2);

    const listed = await cliIn(directory, ['pending']);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain('2 interactions wait for an answer in sqlite:.interlock/interlock.db:');
    expect(listed.stdout).toContain('Tool call: write_file');
    expect(listed.stdout).toContain('category write · risk MEDIUM · asked by rule ask:risk:MEDIUM');
    expect(listed.stdout).toContain('"path": "NOTES.md"');
    expect(listed.stdout).toContain('category command · risk HIGH · asked by rule ask:risk:HIGH');
    expect(listed.stdout).toContain('"command": "ls -la"');

    const pending = await pendingIn(directory);
    const write = pending.find((request) => request.toolApproval?.toolName === 'write_file');
    const bash = pending.find((request) => request.toolApproval?.toolName === 'bash');
    expect(write?.toolApproval).toMatchObject({
      riskLevel: 'MEDIUM',
      rule: 'ask:risk:MEDIUM',
      toolParameters: { path: 'NOTES.md' },
    });

    const approved = await cliIn(directory, ['respond', write!.interactionId, 'approve']);
    expect(approved.exitCode).toBe(3);
    expect(approved.stdout).toContain('write_file(NOTES.md) ✔ SUCCESS');
    expect(approved.stdout).toContain(
      `${bash!.interactionId}  node "agent" · TOOL_APPROVAL · bash(ls -la) · risk HIGH · rule ask:risk:HIGH`,
    );
    expect(await readFile(join(workspace, 'NOTES.md'), 'utf8')).toContain('# Notes');
    expect(existsSync(join(directory, 'NOTES.md'))).toBe(false);

    const rejected = await cliIn(directory, ['respond', bash!.interactionId, 'reject', '--reason', 'not today']);
    expect(rejected.exitCode).toBe(0);
    expect(rejected.stdout).toContain('✓ rejected: not today');
    expect(rejected.stdout).toContain('Refused: bash `ls -la` (the user rejected it: not today)');
    expect(rejected.stdout).toContain('Ran: read_file README.md, write_file NOTES.md.');
    // The audit trail is in the store: the summary counts the decisions of all three processes.
    expect(rejected.stdout).toContain('Audit: 4 tool-call decisions (2 allowed, 2 denied) · hash chain intact');

    const audit = await cliIn(directory, ['audit', '--verify', '--thread', detached.threadId]);
    expect(audit.exitCode).toBe(0);
    expect(audit.stdout).toMatch(
      / allow write_file thread \S+ · execution · decided by person \(cli:\S+\) · rule ask:risk:MEDIUM/,
    );
    expect(audit.stdout).toMatch(
      / deny bash thread \S+ · execution · decided by person \(cli:\S+\) · rule ask:risk:HIGH · not today/,
    );
    expect(audit.stdout).toMatch(/ deny bash thread \S+ · execution · decided by \S+ · rule shell:banned:rm-root/);
    expect(audit.stdout).toMatch(/hash chain intact \(\d+ entries\)/);
    const json = jsonOf<{ entries: Array<{ toolName: string; outcome: string }>; verification: { valid: boolean } }>(
      await cliIn(directory, ['audit', '--json', '--verify', '--thread', detached.threadId]),
    );
    expect(json.entries.map((entry) => `${entry.toolName}:${entry.outcome}`).sort()).toEqual([
      'bash:deny',
      'bash:deny',
      'read_file:allow',
      'write_file:allow',
    ]);
    expect(json.verification.valid).toBe(true);
  });

  it('refuses an edit the engine would refuse (exit 1, its message) and an answer of the wrong kind, and changes nothing', async () => {
    const { directory } = await startAgent();
    const write = (await pendingIn(directory)).find((request) => request.toolApproval?.toolName === 'write_file');

    const edit = await cliIn(directory, ['respond', write!.interactionId, 'edit', '{"path":3}']);
    expect(edit.exitCode).toBe(1);
    expect(edit.stderr).toContain('the answer was refused: the edited arguments do not match the schema of write_file');
    const wrongKind = await cliIn(directory, ['respond', write!.interactionId, 'answer', 'yes']);
    expect(wrongKind.exitCode).toBe(1);
    expect(wrongKind.stderr).toContain(
      'is a tool approval (write_file): answer it with approve, reject [--reason R] or edit',
    );
    const notJson = await cliIn(directory, ['respond', write!.interactionId, 'edit', '{path']);
    expect(notJson.exitCode).toBe(2);

    expect(await pendingIn(directory)).toHaveLength(2);
    const unknown = await cliIn(directory, ['respond', 'no-such-interaction', 'approve']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('no interaction no-such-interaction in sqlite:.interlock/interlock.db');
  });
});

describe('threads, audit and the --store option', () => {
  it('lists threads by status, as a table and as JSON, and refuses an unknown status (exit 2)', async () => {
    const directory = await workingDirectory();
    const detached = jsonOf<Detached>(await cliIn(directory, ['run', 'ask.toml', '--detach', '--json']));
    const table = await cliIn(directory, ['threads']);
    expect(table.stdout).toMatch(/^THREAD +WORKFLOW +STATUS +UPDATED +PENDING$/m);
    expect(table.stdout).toMatch(new RegExp(`^${detached.threadId} +ask-once@1 +waiting +\\S+ +1$`, 'm'));
    expect(jsonOf<unknown[]>(await cliIn(directory, ['threads', '--status', 'waiting', '--json']))).toHaveLength(1);
    expect(jsonOf<unknown[]>(await cliIn(directory, ['threads', '--status', 'completed', '--json']))).toEqual([]);
    const bad = await cliIn(directory, ['threads', '--status', 'sleeping']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(
      '--status "sleeping" is not a status: use one of waiting, running, completed, failed, cancelled',
    );
  });

  it('finds the thread through an explicit --store sqlite:<path> from another directory', async () => {
    const first = await workingDirectory();
    const second = await workingDirectory();
    const store = `sqlite:${join(first, 'flows.db')}`;
    const detached = jsonOf<Detached>(await cliIn(first, ['run', 'ask.toml', '--detach', '--json', '--store', store]));
    expect(existsSync(join(first, '.interlock'))).toBe(false);
    expect((await pendingIn(second, ['--store', store])).map((request) => request.threadId)).toEqual([
      detached.threadId,
    ]);
    expect(await pendingIn(second)).toEqual([]);
    const answered = await cliIn(second, [
      'respond',
      detached.pendingInteractionIds[0]!,
      'answer',
      'from afar',
      '--store',
      store,
      '--json',
    ]);
    expect(jsonOf(answered)).toMatchObject({
      result: 'accepted',
      status: 'completed',
      output: 'the answer was from afar',
      exitCode: 0,
    });
  });

  it('with --store memory keeps nothing after the process and says so', async () => {
    const directory = await workingDirectory();
    const run = await cliIn(directory, ['run', 'ask.toml', '--detach', '--store', 'memory']);
    expect(run.exitCode).toBe(3);
    expect(run.stdout).toContain('The store is memory (--store memory): the thread ends with this process.');
    const pending = await cliIn(directory, ['pending', '--store', 'memory']);
    expect(pending.stdout).toContain('Nothing waits for an answer in memory.');
    expect(existsSync(join(directory, '.interlock'))).toBe(false);
  });

  it.each([['mysql://ada:s3cret@db.example/flows'], ['sqlite:'], ['postgres://ada:s3cret@/']])(
    'refuses --store %s with the accepted forms (exit 2), never printing the password',
    async (spec) => {
      const directory = await workingDirectory();
      for (const command of [['pending'], ['run', 'ask.toml', '--detach']]) {
        const run = await cliIn(directory, [...command, '--store', spec]);
        expect(run.exitCode).toBe(2);
        expect(run.stderr).toContain('is not a store');
        expect(run.stderr).toContain(
          'use sqlite:<path> (default sqlite:.interlock/interlock.db), postgres://user:password@host:port/database[?schema=name] (or postgresql://), or memory',
        );
        expect(`${run.stdout}${run.stderr}`).not.toContain('s3cret');
      }
    },
  );

  it('audit of a store without decisions says so, and --verify passes on the empty chain', async () => {
    const directory = await workingDirectory();
    const audit = await cliIn(directory, ['audit', '--verify']);
    expect(audit.exitCode).toBe(0);
    expect(audit.stdout).toContain('No audit entries in sqlite:.interlock/interlock.db.');
    expect(audit.stdout).toContain('hash chain intact (0 entries)');
    const json = jsonOf<Record<string, unknown>>(await cliIn(directory, ['audit', '--verify', '--json']));
    expect(json).toEqual({
      store: 'sqlite:.interlock/interlock.db',
      entries: [],
      evidence: { heads: [], anchors: [], legacyHead: { sequence: 0, hash: '' } },
      verification: { valid: true, entries: 0 },
      receipts: [],
      keys: { keys: [expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', use: 'sig' })] },
      receiptCheck: { valid: true, receipts: 0, problems: [] },
    });
  });
});
