import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { GatePending } from '@interlock/core';
import { startChatCompletionsServer, startJsonLineChild, type ChatCompletionsServer } from '@interlock/core/testing';
import { editedIdScript, ledgerAt, projectRules, unaudited, type Ledger } from '@interlock/testing-adapters';
import { generateText, stepCountIs, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { interlockApprovals, type InterlockApprovals } from '../index.js';
import { cliCases } from './ai-sdk-cli-cases.js';
import { POLICIES } from './policies.js';

const ANSWER = fileURLToPath(new URL('../../test/answer.mjs', import.meta.url));

/**
 * The adapter's tests through the real runtime of AI SDK `major` (the test file imports
 * that version as `ai`): AI SDK 7 decides with `toolApproval`, AI SDK 6 with `needsApproval`.
 */
export function aiSdkCases(major: 6 | 7): void {
  let server: ChatCompletionsServer;
  let dir: string;
  let ledger: Ledger;
  let approvals: InterlockApprovals | undefined;

  beforeEach(async () => {
    server = await startChatCompletionsServer();
    dir = await mkdtemp(join(tmpdir(), 'interlock-ai-sdk-'));
    ledger = ledgerAt(join(dir, 'ledger.jsonl'));
    await ledger.reset();
  });

  afterEach(async () => {
    await approvals?.close();
    approvals = undefined;
    await server.close();
  });

  /** The tools as the README declares them: zod input schemas, nothing more. */
  function appTools() {
    return {
      read_file: tool({
        description: 'Reads a file',
        inputSchema: z.object({ path: z.string() }),
        execute: async (args) => (await ledger.record('read_file', args), `contents of ${args.path}`),
      }),
      write_file: tool({
        description: 'Writes a file',
        inputSchema: z.object({ path: z.string(), content: z.string() }),
        execute: async (args) => (await ledger.record('write_file', args), `wrote ${args.path}`),
      }),
      bash: tool({
        description: 'Runs a shell command',
        inputSchema: z.object({ command: z.string() }),
        execute: async (args) => (await ledger.record('bash', args), 'ran'),
      }),
    };
  }

  function model() {
    return createOpenAICompatible({ name: 'fixture', baseURL: server.baseURL, apiKey: 'test-key' })('fixture-model');
  }

  /** What `generateText` / `streamText` take from the adapter, the way each major is used. */
  function settings(given: InterlockApprovals, toolSet: ToolSet, sessionId: string) {
    return major === 7
      ? { tools: toolSet, toolApproval: given.toolApproval({ sessionId }) }
      : { tools: given.tools(toolSet, { sessionId }) };
  }

  /**
   * Talks with the model until it stops calling tools: each `generateText`, then
   * `respond()`; a question that waits is handed to `answer` (a person, in another process
   * or here), and the conversation goes on with the answers.
   */
  async function converse(
    sessionId: string,
    answer: (pending: GatePending[]) => Promise<void> = () => Promise.reject(new Error('nobody was to be asked')),
    prompt = 'Do the work',
  ): Promise<{ text: string; conversation: ModelMessage[] }> {
    const given = approvals as InterlockApprovals;
    const toolSet = appTools();
    let conversation: ModelMessage[] = [{ role: 'user', content: prompt }];
    for (let round = 0; round < 8; round += 1) {
      const result = await generateText({
        model: model(),
        ...settings(given, toolSet, sessionId),
        messages: conversation,
        stopWhen: stepCountIs(6),
      });
      conversation = [...conversation, ...result.response.messages];
      let answered = await given.respond(conversation, { sessionId });
      if (answered.status === 'waiting') {
        await answer(answered.pending);
        answered = await given.respond(conversation, { sessionId, wait: true });
      }
      if (answered.status !== 'ready') throw new Error('the answers are not ready');
      if (answered.messages.length === conversation.length) return { text: result.text, conversation };
      conversation = answered.messages;
    }
    throw new Error('the conversation did not end');
  }

  /** Every request the model got, as text: what the model was told. */
  function prompts(): string {
    return JSON.stringify(server.requests.map((request) => request['messages']));
  }

  async function expectEveryRunAudited(): Promise<void> {
    expect(unaudited(await ledger.lines(), await (approvals as InterlockApprovals).gate.interlock.audit())).toEqual([]);
  }

  // Real processes and the frameworks' runtimes: on a busy 2-core machine a run takes seconds.
  describe(`the Vercel AI SDK ${major} under Interlock (F56, F61)`, { timeout: 90_000 }, () => {
    it('runs a read at once, and a write once approved with an edit in another process (F56, F19, F21, F45)', async () => {
      const store = join(dir, 'interlock.db');
      approvals = await interlockApprovals({
        store: { type: 'sqlite', path: store },
        tools: POLICIES,
        workspaceRoot: dir,
      });
      server.enqueue(
        {
          toolCalls: [
            { id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } },
            { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } },
          ],
        },
        { text: 'Notes written.' },
      );
      const { text } = await converse('chat-1', async (pending) => {
        expect(pending.map((decision) => decision.toolName)).toEqual(['write_file']);
        expect(await ledger.lines()).toEqual([{ tool: 'read_file', args: { path: 'README.md' } }]);
        const answerer = startJsonLineChild(
          ANSWER,
          [store, JSON.stringify({ approved: true, editedParameters: { path: 'notes.md', content: 'final' } })],
          {},
        );
        expect(await answerer.line((line) => 'answered' in line)).toMatchObject({ status: 'accepted' });
      });
      expect(text).toBe('Notes written.');
      expect(await ledger.lines()).toEqual([
        { tool: 'read_file', args: { path: 'README.md' } },
        { tool: 'write_file', args: { path: 'notes.md', content: 'final' } },
      ]);
      // The edit replaces the call in the conversation: the model sees what ran (F19).
      expect(JSON.stringify(server.requests[1])).toContain('\\"content\\":\\"final\\"');
      await expectEveryRunAudited();
      expect(await approvals.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
    });

    it('refuses a banned command at once and tells the model a person’s reason for a rejection (F56, F14, F25)', async () => {
      approvals = await interlockApprovals({ tools: POLICIES, workspaceRoot: dir });
      server.enqueue(
        {
          toolCalls: [
            { id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf /' } },
            { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'x' } },
          ],
        },
        { text: 'Understood.' },
      );
      const { text } = await converse('chat-2', async (pending) => {
        expect(pending.map((decision) => decision.toolName)).toEqual(['write_file']);
        const [question] = await approvals!.gate.interlock.pending();
        await approvals!.gate.interlock.respond(question!.interactionId, { approved: false, denyReason: 'not today' });
      });
      expect(text).toBe('Understood.');
      expect(await ledger.lines()).toEqual([]);
      expect(prompts()).toContain('shell:banned');
      expect(prompts()).toContain('not today');
    });

    it('streams: a write waits in the inbox, is approved, runs once and the stream ends with the model’s text (F56)', async () => {
      approvals = await interlockApprovals({ tools: POLICIES, workspaceRoot: dir });
      const toolSet = appTools();
      const given = settings(approvals, toolSet, 'chat-stream');
      server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Notes written, streamed piece by piece.' },
      );
      const messages: ModelMessage[] = [{ role: 'user', content: 'Write the notes' }];
      const first = streamText({ model: model(), ...given, messages, stopWhen: stepCountIs(5) });
      const kinds: string[] = [];
      for await (const part of first.fullStream) kinds.push(part.type);
      expect(kinds).toContain('tool-approval-request');
      expect(kinds).not.toContain('tool-result');
      expect(await ledger.lines()).toEqual([]);
      const conversation = [...messages, ...(await first.response).messages];
      expect(await approvals.respond(conversation, { sessionId: 'chat-stream' })).toMatchObject({ status: 'waiting' });

      const [question] = await approvals.gate.interlock.pending();
      expect(question?.toolApproval).toMatchObject({ toolName: 'write_file', toolParameters: { content: 'draft' } });
      await approvals.gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'ada' });
      const answer = await approvals.respond(conversation, { sessionId: 'chat-stream', wait: true });
      if (answer.status !== 'ready') throw new Error('the answers are not ready');
      const second = streamText({ model: model(), ...given, messages: answer.messages, stopWhen: stepCountIs(5) });
      const deltas: string[] = [];
      for await (const delta of second.textStream) deltas.push(delta);
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe('Notes written, streamed piece by piece.');
      expect(await ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
      expect(server.requests.map((request) => request['stream'])).toEqual([true, true]);
      await expectEveryRunAudited();
    });

    it('applies an approval given hours after the question: by default it waits until answered (F56, F17)', async () => {
      const clock = movableClock();
      approvals = await interlockApprovals({ tools: POLICIES, workspaceRoot: dir, clock: clock.clock });
      server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Done, at last.' },
      );
      const { text } = await converse('chat-late', async () => {
        const [question] = await approvals!.gate.interlock.pending();
        clock.advance(3 * 60 * 60 * 1_000);
        expect(await approvals!.gate.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
          status: 'accepted',
        });
      });
      expect(text).toBe('Done, at last.');
      expect(await ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
    });

    it('decides by the rules of the project file: its allow rule runs a write at once, its deny rule refuses one (F56, F23)', async () => {
      const config = await projectRules(dir);
      approvals = await interlockApprovals({ config, tools: POLICIES, workspaceRoot: dir });
      server.enqueue(
        {
          toolCalls: [
            { id: 'call_log', name: 'write_file', arguments: { path: 'CHANGELOG.md', content: 'entry' } },
            { id: 'call_secret', name: 'write_file', arguments: { path: 'secrets.env', content: 'KEY=1' } },
          ],
        },
        { text: 'The changelog is written.' },
      );
      const { text } = await converse('chat-config');
      expect(text).toBe('The changelog is written.');
      expect(await ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'CHANGELOG.md', content: 'entry' } }]);
      expect(await approvals.gate.interlock.pending()).toEqual([]);
      expect(prompts()).toContain('deny-rule:0');
      expect((await approvals.gate.interlock.audit()).map((entry) => [entry.outcome, entry.rule]).sort()).toEqual([
        ['allow', 'allow-rule:0'],
        ['deny', 'deny-rule:0'],
      ]);
    });
  });

  describe(
    `AI SDK ${major}: a decision is bound to exactly the call it decided (F56, F62)`,
    { timeout: 90_000 },
    () => {
      it('a call id reused in a later step is decided on its own: the banned command under it never runs', async () => {
        approvals = await interlockApprovals({ tools: POLICIES, workspaceRoot: dir });
        server.enqueue(
          { toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }] },
          { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } }] },
          { text: 'I will not do that.' },
        );
        const { text } = await converse('chat-reused');
        expect(text).toBe('I will not do that.');
        expect(await ledger.lines()).toEqual([{ tool: 'read_file', args: { path: 'README.md' } }]);
        expect(prompts()).toContain('shell:banned');
        expect(
          (await approvals.gate.interlock.audit()).map((entry) => [entry.toolName, entry.outcome, entry.decidedBy]),
        ).toEqual([
          ['read_file', 'allow', 'category:read'],
          ['bash', 'deny', expect.stringMatching(/^shell:banned/)],
        ]);
        await expectEveryRunAudited();
      });

      it('two calls of one turn under one id are two calls: each decided, the banned one never runs', async () => {
        approvals = await interlockApprovals({ tools: POLICIES, workspaceRoot: dir });
        server.enqueue(
          {
            toolCalls: [
              { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } },
              { id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } },
            ],
          },
          { text: 'Stopped.' },
        );
        await converse('chat-duplicate');
        expect((await ledger.lines()).filter((line) => line.tool === 'bash')).toEqual([]);
        const audit = await approvals.gate.interlock.audit();
        expect(audit.map((entry) => [entry.toolName, entry.outcome, entry.originalArguments])).toEqual([
          ['read_file', 'allow', { path: 'README.md' }],
          ['bash', 'deny', { command: 'rm -rf /' }],
        ]);
        expect(new Set(audit.map((entry) => entry.threadId)).size).toBe(2);
        await expectEveryRunAudited();
      });

      it('two allowed calls of one turn under one id are each decided and audited before they run', async () => {
        approvals = await interlockApprovals({ tools: POLICIES, workspaceRoot: dir });
        server.enqueue(
          {
            toolCalls: [
              { id: 'call_2', name: 'read_file', arguments: { path: 'a.md' } },
              { id: 'call_2', name: 'read_file', arguments: { path: 'b.md' } },
            ],
          },
          { text: 'Read.' },
        );
        await converse('chat-duplicate-reads');
        const audit = await approvals.gate.interlock.audit();
        expect(audit.map((entry) => [entry.toolName, entry.outcome, entry.originalArguments])).toEqual([
          ['read_file', 'allow', { path: 'a.md' }],
          ['read_file', 'allow', { path: 'b.md' }],
        ]);
        await expectEveryRunAudited();
      });

      it('an id reused with the edited arguments is asked about again, and a banned command under it never runs', async () => {
        approvals = await interlockApprovals({ tools: POLICIES, workspaceRoot: dir });
        const { turns, answers } = editedIdScript();
        server.enqueue(...turns);
        const asked: unknown[] = [];
        const { text } = await converse('chat-edited', async () => {
          const [question] = await approvals!.gate.interlock.pending();
          asked.push(question?.toolApproval?.toolParameters);
          await approvals!.gate.interlock.respond(question!.interactionId, answers.shift(), { responder: 'ada' });
        });
        expect(text).toBe('Deployed to staging once.');
        expect(asked).toEqual([{ command: 'make deploy' }, { command: 'make deploy-staging' }]);
        expect(await ledger.lines()).toEqual([{ tool: 'bash', args: { command: 'make deploy-staging' } }]);
        expect(prompts()).toContain('once is enough');
        expect(prompts()).toContain('shell:banned');
        await expectEveryRunAudited();
      });
    },
  );

  cliCases(major, {
    get dir() {
      return dir;
    },
    get server() {
      return server;
    },
    get ledger() {
      return ledger;
    },
    get approvals() {
      return approvals;
    },
    set approvals(given) {
      approvals = given;
    },
    converse,
    prompts,
  });
}

/** A clock the test moves: the gate's deadlines and the answers' times are read from it. */
function movableClock(start = Date.parse('2026-11-26T09:00:00Z')) {
  let now = start;
  return { clock: { now: () => now }, advance: (ms: number) => (now += ms) };
}
