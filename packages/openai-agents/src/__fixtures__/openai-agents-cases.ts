import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApprovalGate, createInterlock, loadProjectConfig } from '@interlock/core';
import { startChatCompletionsServer, until, type ChatCompletionsServer } from '@interlock/core/testing';
import type { RunStreamEvent } from '@openai/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- the tests' agent is plain JavaScript, shared with the child processes
import { testAgent, TOOL_POLICIES } from '../../test/test-agent.mjs';
import { interlockAgent, type InterlockAgentOptions } from '../index.js';
import { interlockCli } from './interlock-cli.js';
import { ledgerAt, unaudited } from './ledger.js';

type Options = Omit<InterlockAgentOptions<ReturnType<typeof testAgent>>, 'agent'>;

function messagesOf(request: Record<string, unknown> | undefined): { role: string; content?: unknown }[] {
  return (request?.['messages'] ?? []) as { role: string; content?: unknown }[];
}

/**
 * The adapter's tests through the real runtime of the OpenAI Agents SDK `version` (the
 * test file imports that version as `@openai/agents`, with the `openai` it was built for).
 */
export function openAiAgentsCases(version: string): void {
  let server: ChatCompletionsServer;
  let dir: string;
  let ledger: ReturnType<typeof ledgerAt>;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    server = await startChatCompletionsServer();
    dir = await mkdtemp(join(tmpdir(), 'interlock-openai-agents-'));
    ledger = ledgerAt(join(dir, 'ledger.jsonl'));
    await ledger.reset();
  });

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await server.close();
  });

  /** The agent under Interlock, closed after the test; `finished()` resolves with the next run's final output, in turn. */
  async function guard(options: Options = {}) {
    const outputs: unknown[] = [];
    let taken = 0;
    let notify: () => void = () => undefined;
    const guarded = await interlockAgent({
      agent: testAgent({ baseURL: server.baseURL, ledger: join(dir, 'ledger.jsonl') }),
      tools: TOOL_POLICIES,
      workspaceRoot: dir,
      ...options,
      onFinished: async (result, pause) => {
        outputs.push(result.finalOutput);
        notify();
        await options.onFinished?.(result, pause);
      },
    });
    closers.push(() => guarded.close());
    const finished = async (): Promise<unknown> => {
      // A continuation may finish while the gate starts: outputs keeps it until asked for.
      while (outputs.length <= taken) await new Promise<void>((resolve) => (notify = resolve));
      taken += 1;
      return outputs[taken - 1];
    };
    return { guarded, outputs, finished };
  }

  /** Every request the model got, as text: what the model was told. */
  function prompts(): string {
    return JSON.stringify(server.requests.map((request) => messagesOf(request)));
  }

  describe(`the OpenAI Agents SDK ${version} under Interlock (F56, F61)`, { timeout: 90_000 }, () => {
    it('refuses a banned command at once and tells the model a person’s reason for a rejection (F56, F14, F25, F45)', async () => {
      server.enqueue(
        { toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf /' } }] },
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'x' } }] },
        { text: 'Understood.' },
      );
      const { guarded, finished } = await guard();
      const output = finished();
      expect(await guarded.run('Clean up')).toMatchObject({ status: 'paused' });
      const [question] = await guarded.gate.interlock.pending();
      await guarded.gate.interlock.respond(question!.interactionId, { approved: false, denyReason: 'not today' });
      expect(await output).toBe('Understood.');
      expect(await ledger.lines()).toEqual([]);
      expect(JSON.stringify(messagesOf(server.requests[1]))).toContain('shell:banned');
      expect(JSON.stringify(messagesOf(server.requests[2]))).toContain('not today');
      expect(await guarded.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
    });

    it('decides by the rules of the project file: its allow rule runs a write at once, its deny rule refuses one (F56, F23)', async () => {
      const configPath = join(dir, 'interlock.toml');
      await writeFile(
        configPath,
        `[approval]\ndenyRules = ['tool == "write_file" && args.path.startsWith("secrets")']\nallowRules = ['tool == "write_file" && args.path == "CHANGELOG.md"']\n`,
      );
      server.enqueue(
        {
          toolCalls: [
            { id: 'call_log', name: 'write_file', arguments: { path: 'CHANGELOG.md', content: 'entry' } },
            { id: 'call_secret', name: 'write_file', arguments: { path: 'secrets.env', content: 'KEY=1' } },
          ],
        },
        { text: 'The changelog is written.' },
      );
      const { guarded } = await guard({ config: await loadProjectConfig(configPath) });
      expect(await guarded.run('Write the changelog and the secrets')).toMatchObject({
        status: 'completed',
        finalOutput: 'The changelog is written.',
      });
      expect(await ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'CHANGELOG.md', content: 'entry' } }]);
      expect(JSON.stringify(messagesOf(server.requests[1]))).toContain('deny-rule:0');
      expect((await guarded.gate.interlock.audit()).map((entry) => [entry.outcome, entry.rule]).sort()).toEqual([
        ['allow', 'allow-rule:0'],
        ['deny', 'deny-rule:0'],
      ]);
    });

    it('streams: a write waits in the inbox, is approved, runs once and the continued stream ends with the model’s text (F56)', async () => {
      server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Notes written, streamed piece by piece.' },
      );
      const events: RunStreamEvent[] = [];
      const { guarded, finished } = await guard({ onStreamEvent: (event) => void events.push(event) });
      const output = finished();
      expect(await guarded.run('Write the notes')).toMatchObject({ status: 'paused' });
      expect(await ledger.lines()).toEqual([]);
      const beforeAnswer = events.length;
      expect(events.some((event) => event.type === 'raw_model_stream_event')).toBe(true);

      const [question] = await guarded.gate.interlock.pending();
      expect(question?.toolApproval).toMatchObject({ toolName: 'write_file', toolParameters: { content: 'draft' } });
      await guarded.gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'ada' });
      expect(await output).toBe('Notes written, streamed piece by piece.');
      const deltas = events
        .slice(beforeAnswer)
        .flatMap((event) =>
          event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta' ? [event.data.delta] : [],
        );
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe('Notes written, streamed piece by piece.');
      expect(await ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
      expect(server.requests.map((request) => request['stream'])).toEqual([true, true]);
      expect(await guarded.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
    });

    it('applies an approval given hours after the question, and with approvalTimeoutMs rejects a late one as timed out (F56, F17)', async () => {
      let now = Date.parse('2026-11-26T09:00:00Z');
      const clock = { now: () => now };
      const write = { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } };
      server.enqueue({ toolCalls: [write] }, { text: 'Done, at last.' });
      const patient = await guard({ name: 'patient', clock });
      let output = patient.finished();
      expect(await patient.guarded.run('Write the notes')).toMatchObject({ status: 'paused' });
      const [question] = await patient.guarded.gate.interlock.pending();
      now += 3 * 60 * 60 * 1_000;
      expect(await patient.guarded.gate.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
        status: 'accepted',
      });
      expect(await output).toBe('Done, at last.');
      expect((await ledger.lines()).map(({ tool }) => tool)).toEqual(['write_file']);

      server.enqueue({ toolCalls: [{ ...write, id: 'call_write_2' }] }, { text: 'Nobody approved it.' });
      const hurried = await guard({ name: 'hurried', clock, approvalTimeoutMs: 60_000 });
      output = hurried.finished();
      expect(await hurried.guarded.run('Write the notes again')).toMatchObject({ status: 'paused' });
      const [late] = await hurried.guarded.gate.interlock.pending();
      expect(late?.timeout).toBe(60_000);
      now += 61_000;
      expect(await hurried.guarded.gate.interlock.respond(late!.interactionId, { approved: true })).toMatchObject({
        status: 'expired',
      });
      expect(await output).toBe('Nobody approved it.');
      expect((await ledger.lines()).map(({ tool }) => tool)).toEqual(['write_file']);
      expect(JSON.stringify(messagesOf(server.requests.at(-1)))).toContain('nobody answered in time');
    });
  });

  describe(
    `OpenAI Agents SDK ${version}: a decision is bound to exactly the call it decided (F56, F62)`,
    { timeout: 90_000 },
    () => {
      it('a call id reused in a later turn is decided on its own: the banned command under it never runs', async () => {
        server.enqueue(
          { toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }] },
          { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } }] },
          { text: 'I will not do that.' },
        );
        const { guarded } = await guard();
        const outcome = await guarded.run('Read, then clean up').catch((error: unknown) => ({ error }));
        expect(await ledger.lines()).toEqual([{ tool: 'read_file', args: { path: 'README.md' } }]);
        const audit = await guarded.gate.interlock.audit();
        expect(unaudited(await ledger.lines(), audit)).toEqual([]);
        expect(audit.map((entry) => [entry.toolName, entry.outcome])).not.toContainEqual(['bash', 'allow']);
        expect(outcome).toMatchObject({ status: 'completed', finalOutput: 'I will not do that.' });
        expect(prompts()).toContain('shell:banned');
      });

      it('two calls of one turn under one id are two calls: each decided as itself, the banned one never runs', async () => {
        server.enqueue(
          {
            toolCalls: [
              { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } },
              { id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } },
            ],
          },
          { text: 'Read it; the rest was refused.' },
        );
        const { guarded } = await guard();
        expect(await guarded.run('Read, then clean up')).toMatchObject({ status: 'completed' });
        expect((await ledger.lines()).filter((line) => line.tool === 'bash')).toEqual([]);
        const audit = await guarded.gate.interlock.audit();
        expect(audit.map((entry) => [entry.toolName, entry.outcome, entry.originalArguments]).sort()).toEqual([
          ['bash', 'deny', { command: 'rm -rf /' }],
          ['read_file', 'allow', { path: 'README.md' }],
        ]);
        // The audit says the bash call was denied by the shell rules, and the model is told so.
        expect(audit.find((entry) => entry.toolName === 'bash')?.rule).toMatch(/^shell:banned/);
        expect(unaudited(await ledger.lines(), audit)).toEqual([]);
        expect(prompts()).toContain('shell:banned');
      });

      it('an id reused with the edited arguments is asked about again, and a banned command under it never runs', async () => {
        server.enqueue(
          { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'make deploy' } }] },
          { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'make deploy-staging' } }] },
          { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } }] },
          { text: 'Deployed to staging once.' },
        );
        const answers = [
          { approved: true, editedParameters: { command: 'make deploy-staging' } },
          { approved: false, denyReason: 'once is enough' },
        ];
        const asked: unknown[] = [];
        const { guarded, outputs } = await guard();
        const subscription = guarded.gate.interlock.events$.subscribe((event) => {
          if (event.type !== 'USER_INTERACTION_REQUESTED') return;
          asked.push(event.request.toolApproval?.toolParameters);
          void guarded.gate.interlock.respond(event.request.interactionId, answers.shift(), { responder: 'ada' });
        });
        try {
          const first = await guarded.run('Deploy');
          if (first.status === 'completed') outputs.push(first.finalOutput);
          await waitFor(() => outputs.length > 0 || asked.length > 2);
        } finally {
          subscription.unsubscribe();
        }
        expect(asked).toEqual([{ command: 'make deploy' }, { command: 'make deploy-staging' }]);
        expect(await ledger.lines()).toEqual([{ tool: 'bash', args: { command: 'make deploy-staging' } }]);
        expect(unaudited(await ledger.lines(), await guarded.gate.interlock.audit())).toEqual([]);
        expect(prompts()).toContain('once is enough');
        expect(prompts()).toContain('shell:banned');
      });
    },
  );

  describe(`OpenAI Agents SDK ${version}: answers from the command line (F56, F62, F19)`, { timeout: 90_000 }, () => {
    it('refuses an edit that breaks the tool’s parameters (exit 1, the question stays open), for a tool left out of `tools` too', async () => {
      const store = join(dir, 'interlock.db');
      server.enqueue(
        {
          toolCalls: [
            { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } },
            { id: 'call_bash', name: 'bash', arguments: { command: 'make notes' } },
          ],
        },
        { text: 'Written.' },
      );
      // As the README declares them: categories and risks, no JSON Schema; bash is left out.
      const { guarded, finished } = await guard({
        store: { type: 'sqlite', path: store },
        tools: { write_file: { category: 'write', riskLevel: 'MEDIUM', pathArgument: 'path' } },
      });
      const output = finished();
      expect(await guarded.run('Write the notes')).toMatchObject({ status: 'paused' });
      const questions = await guarded.gate.interlock.pending();
      const idOf = (tool: string) =>
        questions.find((question) => question.toolApproval?.toolName === tool)?.interactionId ?? '';
      for (const [tool, edit] of [
        ['write_file', '{"path":"notes.md","content":42}'],
        ['bash', '{"command":["make","notes"]}'],
      ] as const) {
        const refused = await interlockCli(store, ['respond', idOf(tool), 'edit', edit]);
        expect(refused.code).toBe(1);
        expect(refused.stderr + refused.stdout).toMatch(/schema/);
      }
      expect(await guarded.gate.interlock.pending()).toHaveLength(2);
      expect((await interlockCli(store, ['respond', idOf('write_file'), 'approve'])).code).toBe(0);
      expect((await interlockCli(store, ['respond', idOf('bash'), 'reject', '--reason', 'not now'])).code).toBe(0);
      expect(await output).toBe('Written.');
      expect(await ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
      expect(prompts()).not.toMatch(/\/[\w.-]+\/[\w.-]+\.(?:js|ts):\d+/);
    });

    it('a second approver after a rejection leaves the model reading the first reason (F56)', async () => {
      const store = join(dir, 'interlock.db');
      server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Waiting for the review.' },
      );
      const asker = await guard({ store: { type: 'sqlite', path: store } });
      expect(await asker.guarded.run('Write the notes')).toMatchObject({ status: 'paused' });
      const [question] = await asker.guarded.gate.interlock.pending();
      await asker.guarded.close();
      // No gate runs: `interlock respond` takes the decision to its end itself; a second approver is refused.
      const id = question!.interactionId;
      expect((await interlockCli(store, ['respond', id, 'reject', '--reason', 'not before the review'])).code).toBe(0);
      expect((await interlockCli(store, ['respond', id, 'approve'])).code).toBe(4);
      // The next process of the agent continues the run.
      const continuer = await guard({ store: { type: 'sqlite', path: store } });
      const output = continuer.finished();
      expect(await output).toBe('Waiting for the review.');
      expect(await ledger.lines()).toEqual([]);
      expect(prompts()).toContain('not before the review');
      expect(prompts()).not.toContain('attempt');
    });

    it('a late answer after the deadline leaves the model reading that nobody answered in time (F56, F17)', async () => {
      const store = join(dir, 'interlock.db');
      let now = Date.parse('2026-11-26T09:00:00Z');
      const clock = { now: () => now };
      server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Nobody approved it.' },
      );
      const options = { store: { type: 'sqlite' as const, path: store }, clock, approvalTimeoutMs: 60_000 };
      const asker = await guard(options);
      expect(await asker.guarded.run('Write the notes')).toMatchObject({ status: 'paused' });
      const [question] = await asker.guarded.gate.interlock.pending();
      await asker.guarded.close();
      now += 61_000;
      await answerTooLate(store, clock, question!, { name: 'openai-agents.notes-agent', approvalTimeoutMs: 60_000 });
      const continuer = await guard(options);
      expect(await continuer.finished()).toBe('Nobody approved it.');
      expect(await ledger.lines()).toEqual([]);
      expect(prompts()).toContain('nobody answered in time');
      expect(prompts()).not.toContain('attempt');
    });
  });
}

/**
 * A late answer, after the decision timed out in a process of the gate that did not continue
 * it: answered as `interlock respond` answers (refused as expired, the attempt audited after
 * the decision), so the next process of the agent reads the decision with the attempt after it.
 */
export async function answerTooLate(
  store: string,
  clock: { now(): number },
  { interactionId, threadId }: { interactionId: string; threadId: string },
  gate: { name: string; approvalTimeoutMs: number },
): Promise<void> {
  const bystander = await createApprovalGate({ ...gate, store: { type: 'sqlite', path: store }, clock });
  try {
    await until(
      'the decision to time out',
      () => bystander.interlock.thread(threadId),
      (thread) => thread?.status === 'completed' || thread?.status === 'failed',
    );
  } finally {
    await bystander.close();
  }
  const elsewhere = await createInterlock({ store: { type: 'sqlite', path: store }, clock, recoverOnStart: false });
  try {
    const result = await elsewhere.respond(interactionId, { approved: true }, { responder: 'cli:ada' });
    expect(result.status).toBe('expired');
    await elsewhere.recordAttempt({ interactionId, responder: 'cli:ada', result: 'lost', reason: 'approve: expired' });
    expect((await elsewhere.audit({ threadId })).map((entry) => entry.decidedBy)).toEqual([
      'interaction:timeout',
      'attempt',
    ]);
  } finally {
    await elsewhere.close();
  }
}

/** Waits for what the gate's continuation reports in this process. */
async function waitFor(done: () => boolean): Promise<void> {
  await until(
    'the run to end',
    () => done(),
    (value) => value,
  );
}
