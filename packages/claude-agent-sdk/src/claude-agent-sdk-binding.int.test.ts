import { access, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ofType } from '@interlock/core';
import { until } from '@interlock/core/testing';
import { interlockCli } from '@interlock/testing-adapters';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeOptions, fakeTerraform, runToEnd, TERRAFORM_DESTROY, toolResults } from './__fixtures__/claude-code.js';
import { startMessagesServer, type MessagesServer } from './__fixtures__/messages-server.js';
import { interlockPermissions, type InterlockPermissions } from './index.js';

let server: MessagesServer;
let dir: string;
let terraform: { bin: string; log: string };
let permissions: InterlockPermissions | undefined;

beforeEach(async () => {
  server = await startMessagesServer();
  dir = await mkdtemp(join(tmpdir(), 'interlock-claude-'));
  await mkdir(join(dir, 'home'));
  await writeFile(join(dir, 'README.md'), '# Readme\n');
  terraform = await fakeTerraform(dir);
});

afterEach(async () => {
  await permissions?.close();
  permissions = undefined;
  await server.close();
});

const options = (extra: Parameters<typeof claudeOptions>[1]) =>
  claudeOptions({ dir, server, bin: terraform.bin }, extra);

async function terraformRan(): Promise<string[]> {
  return (await readFile(terraform.log, 'utf8')).split('\n').filter((line) => line !== '');
}

/** Answers each question as it is asked, with the next of `answers`; what was asked, in order. */
function answering(given: InterlockPermissions, answers: unknown[]) {
  const asked: unknown[] = [];
  const subscription = given.gate.interlock.events$.pipe(ofType('USER_INTERACTION_REQUESTED')).subscribe((event) => {
    asked.push(event.request.toolApproval?.toolParameters);
    const answer = answers.shift();
    if (answer !== undefined)
      void given.gate.interlock.respond(event.request.interactionId, answer, { responder: 'ada' });
  });
  return { asked, stop: () => subscription.unsubscribe() };
}

/** Every allow of the audit: the calls a decision let run, with the arguments they ran with. */
async function allowed(given: InterlockPermissions): Promise<[string, Record<string, unknown>][]> {
  return (await given.gate.interlock.audit())
    .filter((entry) => entry.outcome === 'allow')
    .map((entry) => [entry.toolName, entry.editedArguments ?? entry.originalArguments]);
}

/** How the app puts Interlock in front of Claude Code: `canUseTool`, or the `PreToolUse` hook that sees every call. */
const WAYS = ['canUseTool', 'hooks'] as const;

function asked(given: InterlockPermissions, way: (typeof WAYS)[number]) {
  return way === 'hooks' ? { hooks: given.hooks() } : { canUseTool: given.canUseTool };
}

// Real processes and the frameworks' runtimes: on a busy 2-core machine a run takes seconds.
// Claude Code shows the model the first result of a reused tool-use id for every call under it
// (its own handling of ids): what these tests hold is what Interlock decided and what ran.
describe.each(WAYS)(
  'the Claude Agent SDK (%s): a decision is bound to exactly the call it decided (F56, F62)',
  { timeout: 90_000 },
  (way) => {
    it('a tool-use id reused in a later turn is decided on its own: the banned command under it never runs', async () => {
      permissions = await interlockPermissions({ workspaceRoot: dir, shell: { extraBanned: [TERRAFORM_DESTROY] } });
      server.enqueue(
        { toolUses: [{ id: 'toolu_1', name: 'Read', input: { file_path: join(dir, 'README.md') } }] },
        { toolUses: [{ id: 'toolu_1', name: 'Bash', input: { command: 'terraform destroy -auto-approve' } }] },
        { text: 'I will not do that.' },
      );
      expect(await runToEnd(options(asked(permissions, way)))).toBe('I will not do that.');
      expect(await terraformRan()).toEqual([]);
      expect(toolResults(server)).toContain('# Readme');
      const audit = await permissions.gate.interlock.audit();
      expect(audit.filter((entry) => entry.toolName === 'Bash').map((entry) => [entry.outcome, entry.rule])).toEqual([
        ['deny', 'shell:banned:terraform-destroy'],
      ]);
      // The hook sees every call (canUseTool only those Claude Code would ask about: not a read in the workspace).
      if (way === 'hooks')
        expect(await allowed(permissions)).toEqual([['Read', { file_path: join(dir, 'README.md') }]]);
    });

    it('two tool uses of one turn under one id are two calls: each decided as itself, the banned one never runs', async () => {
      permissions = await interlockPermissions({ workspaceRoot: dir, shell: { extraBanned: [TERRAFORM_DESTROY] } });
      server.enqueue(
        {
          toolUses: [
            { id: 'toolu_1', name: 'Bash', input: { command: 'terraform version' } },
            { id: 'toolu_1', name: 'Bash', input: { command: 'terraform destroy -auto-approve' } },
          ],
        },
        { text: 'The rest was refused.' },
      );
      const answers = answering(permissions, [{ approved: true }]);
      try {
        await runToEnd(options(asked(permissions, way)));
      } finally {
        answers.stop();
      }
      expect((await terraformRan()).filter((line) => line.includes('destroy'))).toEqual([]);
      const audit = await permissions.gate.interlock.audit();
      expect(audit.map((entry) => [entry.outcome, entry.originalArguments['command']]).sort()).toEqual([
        ['allow', 'terraform version'],
        ['deny', 'terraform destroy -auto-approve'],
      ]);
      expect(new Set(audit.map((entry) => entry.threadId)).size).toBe(2);
      // Every command that ran was let run by a decision of its own.
      for (const line of await terraformRan())
        expect(await allowed(permissions)).toContainEqual(['Bash', { command: line }]);
    });

    it('an id reused with the edited arguments is asked about again, and a banned command under it never runs', async () => {
      permissions = await interlockPermissions({ workspaceRoot: dir, shell: { extraBanned: [TERRAFORM_DESTROY] } });
      server.enqueue(
        { toolUses: [{ id: 'toolu_1', name: 'Bash', input: { command: 'terraform plan' } }] },
        { toolUses: [{ id: 'toolu_1', name: 'Bash', input: { command: 'terraform plan -lock=false' } }] },
        { toolUses: [{ id: 'toolu_1', name: 'Bash', input: { command: 'terraform destroy -auto-approve' } }] },
        { text: 'Planned once.' },
      );
      const answers = answering(permissions, [
        { approved: true, editedParameters: { command: 'terraform plan -lock=false' } },
        { approved: false, denyReason: 'once is enough' },
      ]);
      try {
        expect(await runToEnd(options(asked(permissions, way)))).toBe('Planned once.');
      } finally {
        answers.stop();
      }
      expect(answers.asked).toEqual([{ command: 'terraform plan' }, { command: 'terraform plan -lock=false' }]);
      expect(await terraformRan()).toEqual(['terraform plan -lock=false']);
      expect(await allowed(permissions)).toEqual([['Bash', { command: 'terraform plan -lock=false' }]]);
      expect(
        (await permissions.gate.interlock.audit())
          .filter((entry) => entry.outcome === 'deny')
          .map((entry) => entry.rule),
      ).toEqual([expect.any(String), 'shell:banned:terraform-destroy']);
    });
  },
);

/** The model writes `file` of the workspace with Claude Code's Write, then says `text`. */
function modelWrites(file: string, text: string, content = 'draft'): void {
  server.enqueue(
    { toolUses: [{ id: 'toolu_write', name: 'Write', input: { file_path: join(dir, file), content } }] },
    { text },
  );
}

/** Interlock's permissions on a SQLite store, where `interlock respond` answers: the store's path. */
async function permissionsOnAStore(): Promise<{ store: string; given: InterlockPermissions }> {
  const store = join(dir, 'interlock.db');
  permissions = await interlockPermissions({ store: { type: 'sqlite', path: store }, workspaceRoot: dir });
  return { store, given: permissions };
}

/** The first question the gate asks, once it is asked. */
async function firstQuestion(given: InterlockPermissions) {
  const [question] = await until(
    'the question to be asked',
    () => given.gate.interlock.pending(),
    (list) => list.length > 0,
  );
  return question!;
}

describe('the Claude Agent SDK: answers from the command line (F56, F62, F19)', { timeout: 90_000 }, () => {
  it('refuses an edit that breaks the tool’s input schema (exit 1, the question stays open) for Claude Code’s own Write', async () => {
    const { store, given } = await permissionsOnAStore();
    modelWrites('notes.md', 'Written.');
    const answered = (async () => {
      const question = await firstQuestion(given);
      const id = question.interactionId;
      const edit = JSON.stringify({ file_path: join(dir, 'notes.md'), content: 42 });
      const refused = await interlockCli(store, ['respond', id, 'edit', edit]);
      expect(refused.code).toBe(1);
      expect(refused.stderr + refused.stdout).toMatch(/schema/);
      expect((await given.gate.interlock.pending()).map((open) => open.interactionId)).toEqual([id]);
      expect((await interlockCli(store, ['respond', id, 'approve'])).code).toBe(0);
    })();
    expect(await runToEnd(options({ canUseTool: given.canUseTool }))).toBe('Written.');
    await answered;
    expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('draft');
  });

  it('a second approver after a rejection is refused and changes nothing: the model and the gate keep the first reason', async () => {
    const { store, given } = await permissionsOnAStore();
    modelWrites('notes.md', 'Waiting for the review.');
    const answered = (async () => {
      const question = await firstQuestion(given);
      const id = question.interactionId;
      expect((await interlockCli(store, ['respond', id, 'reject', '--reason', 'not before the review'])).code).toBe(0);
      await until(
        'the decision to end',
        () => given.gate.interlock.thread(question.threadId),
        (thread) => thread?.status === 'failed' || thread?.status === 'completed',
      );
      expect((await interlockCli(store, ['respond', id, 'approve'])).code).toBe(4);
      return question.threadId;
    })();
    expect(await runToEnd(options({ canUseTool: given.canUseTool }))).toBe('Waiting for the review.');
    const threadId = await answered;
    await expect(access(join(dir, 'notes.md'))).rejects.toThrow();
    expect(toolResults(server)).toContain('not before the review');
    expect((await given.gate.interlock.audit({ threadId })).at(-1)).toMatchObject({ decidedBy: 'attempt' });
    expect(await given.gate.decisions([threadId])).toMatchObject([
      { status: 'rejected', decidedBy: 'person', reason: expect.stringContaining('not before the review') },
    ]);
  });

  it('a late answer after the deadline is refused and changes nothing: the model and the gate keep the timeout (F17)', async () => {
    let now = Date.parse('2026-11-26T09:00:00Z');
    const clock = { now: () => now };
    permissions = await interlockPermissions({ workspaceRoot: dir, clock, approvalTimeoutMs: 60_000 });
    modelWrites('late.md', 'Nobody approved it.', 'x');
    const given = permissions;
    const answered = (async () => {
      const question = await firstQuestion(given);
      now += 61_000;
      // As `interlock respond` answers: refused as expired, and the attempt audited.
      const result = await given.gate.interlock.respond(
        question.interactionId,
        { approved: true },
        { responder: 'cli:ada' },
      );
      expect(result.status).toBe('expired');
      await given.gate.interlock.recordAttempt({
        interactionId: question.interactionId,
        responder: 'cli:ada',
        result: 'lost',
        reason: 'approve: expired',
      });
      return question.threadId;
    })();
    expect(await runToEnd(options({ canUseTool: permissions.canUseTool }))).toBe('Nobody approved it.');
    const threadId = await answered;
    await expect(access(join(dir, 'late.md'))).rejects.toThrow();
    expect(toolResults(server)).toContain('nobody answered in time');
    expect(toolResults(server)).not.toContain('attempt');
    expect(await permissions.gate.decisions([threadId])).toMatchObject([
      { status: 'rejected', decidedBy: 'timeout', reason: expect.stringMatching(/^nobody answered in time/) },
    ]);
  });
});
