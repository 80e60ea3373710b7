import { access, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { loadProjectConfig, ofType } from '@interlock/core';
import type { EventOfType, InterlockEventType } from '@interlock/sdk-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startJsonLineChild } from '@interlock/core/testing';
import {
  claudeOptions as optionsFor,
  runToEnd,
  TERRAFORM_DESTROY,
  toolResults as resultsOf,
} from './__fixtures__/claude-code.js';
import { startMessagesServer, type MessagesServer } from './__fixtures__/messages-server.js';
import { interlockPermissions, type InterlockPermissions } from './index.js';

const ANSWER = fileURLToPath(new URL('../test/answer.mjs', import.meta.url));

let server: MessagesServer;
let dir: string;
let permissions: InterlockPermissions | undefined;

beforeEach(async () => {
  server = await startMessagesServer();
  dir = await mkdtemp(join(tmpdir(), 'interlock-claude-'));
  await mkdir(join(dir, 'home'));
  await writeFile(join(dir, 'README.md'), '# Readme\n');
});

afterEach(async () => {
  await permissions?.close();
  permissions = undefined;
  await server.close();
});

const claudeOptions = (extra: Partial<Options>): Options => optionsFor({ dir, server }, extra);
const toolResults = (): string => resultsOf(server);

/** The next event of `type` of the gate's Interlock. */
function nextEvent<TYPE extends InterlockEventType>(
  of: InterlockPermissions,
  ...types: TYPE[]
): Promise<EventOfType<TYPE>> {
  return new Promise((resolve) => {
    const subscription = of.gate.interlock.events$.pipe(ofType(...types)).subscribe((event) => {
      subscription.unsubscribe();
      resolve(event);
    });
  });
}

// Real processes and the frameworks' runtimes: on a busy 2-core machine a run takes seconds.
describe('the Claude Agent SDK under Interlock (F56)', { timeout: 60_000 }, () => {
  it('canUseTool: a read runs, a write runs with the edit approved in another process, a banned command and a rejected write do not run (F56, F14, F19, F25, F45)', async () => {
    const store = join(dir, 'interlock.db');
    permissions = await interlockPermissions({
      store: { type: 'sqlite', path: store },
      workspaceRoot: dir,
      shell: { extraBanned: [TERRAFORM_DESTROY] },
    });
    server.enqueue(
      { toolUses: [{ id: 'toolu_read', name: 'Read', input: { file_path: join(dir, 'README.md') } }] },
      {
        toolUses: [{ id: 'toolu_write', name: 'Write', input: { file_path: join(dir, 'notes.md'), content: 'draft' } }],
      },
      { toolUses: [{ id: 'toolu_bash', name: 'Bash', input: { command: 'terraform destroy -auto-approve' } }] },
      { toolUses: [{ id: 'toolu_other', name: 'Write', input: { file_path: join(dir, 'other.md'), content: 'x' } }] },
      { text: 'Notes written.' },
    );
    // Each question is answered from another process, the way the web inbox of a deployment answers.
    const answers = [
      { approved: true, editedParameters: { file_path: join(dir, 'notes.md'), content: 'final' } },
      { approved: false, denyReason: 'not that file' },
    ];
    const asked: string[] = [];
    const answering = permissions.gate.interlock.events$
      .pipe(ofType('USER_INTERACTION_REQUESTED'))
      .subscribe((event) => {
        asked.push(event.request.toolApproval?.toolName ?? '');
        const answer = answers.shift();
        if (answer !== undefined) startJsonLineChild(ANSWER, [store, JSON.stringify(answer)], {});
      });
    try {
      expect(await runToEnd(claudeOptions({ canUseTool: permissions.canUseTool }))).toBe('Notes written.');
    } finally {
      answering.unsubscribe();
    }
    expect(asked).toEqual(['Write', 'Write']);
    expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('final');
    await expect(readFile(join(dir, 'other.md'), 'utf8')).rejects.toThrow();
    const results = toolResults();
    expect(results).toContain('# Readme');
    expect(results).toContain('shell:banned:terraform-destroy');
    expect(results).toContain('not that file');
    const audit = await permissions.gate.interlock.audit();
    expect(audit.map((entry) => [entry.toolName, entry.outcome])).toEqual(
      expect.arrayContaining([
        ['Write', 'allow'],
        ['Bash', 'deny'],
        ['Write', 'deny'],
      ]),
    );
    expect(await permissions.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
  });

  it('the PreToolUse hook refuses a banned command before Claude Code runs it (F56, F25)', async () => {
    permissions = await interlockPermissions({ workspaceRoot: dir, shell: { extraBanned: [TERRAFORM_DESTROY] } });
    server.enqueue(
      { toolUses: [{ id: 'toolu_bash', name: 'Bash', input: { command: 'terraform destroy -auto-approve' } }] },
      { text: 'Understood.' },
    );
    expect(await runToEnd(claudeOptions({ hooks: permissions.hooks() }))).toBe('Understood.');
    expect(toolResults()).toContain('shell:banned:terraform-destroy');
    expect((await permissions.gate.interlock.audit()).map((entry) => [entry.toolName, entry.outcome])).toEqual([
      ['Bash', 'deny'],
    ]);
  });

  it('canUseTool: aborting the query aborts the SDK’s signal, which cancels the question; the write never runs (F56, F10)', async () => {
    permissions = await interlockPermissions({ workspaceRoot: dir });
    server.enqueue({
      toolUses: [{ id: 'toolu_write', name: 'Write', input: { file_path: join(dir, 'notes.md'), content: 'draft' } }],
    });
    const { interlock } = permissions.gate;
    const asked = nextEvent(permissions, 'USER_INTERACTION_REQUESTED');
    const ended = nextEvent(permissions, 'THREAD_COMPLETED', 'THREAD_FAILED', 'THREAD_CANCELLED');
    const abortController = new AbortController();
    const running = runToEnd(claudeOptions({ canUseTool: permissions.canUseTool, abortController })).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const question = await asked;
    expect(question.request.toolApproval?.toolName).toBe('Write');
    expect(await interlock.pending()).toHaveLength(1);
    abortController.abort();
    expect((await ended).threadId).toBe(question.threadId);
    await running;
    expect(await interlock.pending()).toEqual([]);
    const [interaction] = await interlock.interactions({ threadId: question.threadId });
    expect(interaction).toMatchObject({ status: 'failed', failureReason: 'cancelled' });
    expect(
      (await interlock.audit({ threadId: question.threadId })).map((entry) => [
        entry.toolName,
        entry.outcome,
        entry.decidedBy,
      ]),
    ).toEqual([['Write', 'deny', 'interaction:cancelled']]);
    await expect(access(join(dir, 'notes.md'))).rejects.toThrow();
  });

  it('canUseTool: an approval given hours later runs the write; with approvalTimeoutMs a late one is refused and the model is told (F56, F17)', async () => {
    let now = Date.parse('2026-11-26T09:00:00Z');
    const clock = { now: () => now };
    const answerLate = (given: InterlockPermissions, after: number) => {
      const results: unknown[] = [];
      const subscription = given.gate.interlock.events$
        .pipe(ofType('USER_INTERACTION_REQUESTED'))
        .subscribe((event) => {
          now += after;
          void given.gate.interlock
            .respond(event.request.interactionId, { approved: true }, { responder: 'ada' })
            .then((result) => results.push(result.status));
        });
      return { results, stop: () => subscription.unsubscribe() };
    };
    const write = (file: string) => ({
      toolUses: [{ id: `toolu_${file}`, name: 'Write', input: { file_path: join(dir, file), content: 'late' } }],
    });

    permissions = await interlockPermissions({ workspaceRoot: dir, clock });
    server.enqueue(write('patient.md'), { text: 'Written, hours later.' });
    let answering = answerLate(permissions, 3 * 60 * 60 * 1_000);
    try {
      expect(await runToEnd(claudeOptions({ canUseTool: permissions.canUseTool }))).toBe('Written, hours later.');
    } finally {
      answering.stop();
    }
    expect(answering.results).toEqual(['accepted']);
    expect(await readFile(join(dir, 'patient.md'), 'utf8')).toBe('late');
    await permissions.close();

    permissions = await interlockPermissions({ workspaceRoot: dir, clock, approvalTimeoutMs: 60_000 });
    server.enqueue(write('hurried.md'), { text: 'Nobody approved it.' });
    answering = answerLate(permissions, 61_000);
    try {
      expect(await runToEnd(claudeOptions({ canUseTool: permissions.canUseTool }))).toBe('Nobody approved it.');
    } finally {
      answering.stop();
    }
    expect(answering.results).toEqual(['expired']);
    await expect(access(join(dir, 'hurried.md'))).rejects.toThrow();
    expect(toolResults()).toContain('nobody answered in time');
  });

  it('canUseTool decides by the rules of the project file: its allow rule runs a write at once, its deny rule refuses one (F56, F23)', async () => {
    const configPath = join(dir, 'interlock.toml');
    await writeFile(
      configPath,
      `[approval]\ndenyRules = ['tool == "Write" && args.file_path.endsWith("secrets.env")']\nallowRules = ['tool == "Write" && args.file_path.endsWith("CHANGELOG.md")']\n`,
    );
    permissions = await interlockPermissions({ config: await loadProjectConfig(configPath), workspaceRoot: dir });
    server.enqueue(
      {
        toolUses: [
          { id: 'toolu_log', name: 'Write', input: { file_path: join(dir, 'CHANGELOG.md'), content: 'entry' } },
        ],
      },
      {
        toolUses: [
          { id: 'toolu_secret', name: 'Write', input: { file_path: join(dir, 'secrets.env'), content: 'KEY=1' } },
        ],
      },
      { text: 'The changelog is written.' },
    );
    expect(await runToEnd(claudeOptions({ canUseTool: permissions.canUseTool }))).toBe('The changelog is written.');
    expect(await readFile(join(dir, 'CHANGELOG.md'), 'utf8')).toBe('entry');
    await expect(access(join(dir, 'secrets.env'))).rejects.toThrow();
    expect(await permissions.gate.interlock.pending()).toEqual([]);
    expect(toolResults()).toContain('deny-rule:0');
    expect(
      (await permissions.gate.interlock.audit()).map((entry) => [entry.toolName, entry.outcome, entry.rule]),
    ).toEqual([
      ['Write', 'allow', 'allow-rule:0'],
      ['Write', 'deny', 'deny-rule:0'],
    ]);
  });
});
