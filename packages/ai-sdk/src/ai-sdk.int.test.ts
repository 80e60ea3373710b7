import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { loadProjectConfig } from '@interlock/core';
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startChatCompletionsServer, type ChatCompletionsServer } from '@interlock/core/testing';
import { startJsonLineChild } from '@interlock/core/testing';
import { interlockApprovals, type InterlockApprovals } from './index.js';

const ANSWER = fileURLToPath(new URL('../test/answer.mjs', import.meta.url));

let server: ChatCompletionsServer;
let dir: string;
let ledger: string;
let approvals: InterlockApprovals | undefined;

beforeEach(async () => {
  server = await startChatCompletionsServer();
  dir = await mkdtemp(join(tmpdir(), 'interlock-ai-sdk-'));
  ledger = join(dir, 'ledger.jsonl');
  await writeFile(ledger, '');
});

afterEach(async () => {
  await approvals?.close();
  approvals = undefined;
  await server.close();
});

function appTools() {
  const record = async (name: string, args: unknown) => {
    await writeFile(ledger, `${JSON.stringify({ tool: name, args })}\n`, { flag: 'a' });
  };
  return {
    read_file: tool({
      description: 'Reads a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async (args) => (await record('read_file', args), `contents of ${args.path}`),
    }),
    write_file: tool({
      description: 'Writes a file',
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async (args) => (await record('write_file', args), `wrote ${args.path}`),
    }),
    bash: tool({
      description: 'Runs a shell command',
      inputSchema: z.object({ command: z.string() }),
      execute: async (args) => (await record('bash', args), 'ran'),
    }),
  };
}

const POLICIES = {
  read_file: { category: 'read' as const, riskLevel: 'LOW' as const },
  write_file: { category: 'write' as const, riskLevel: 'MEDIUM' as const, pathArgument: 'path' },
  bash: { category: 'command' as const, riskLevel: 'HIGH' as const, commandArgument: 'command' },
};

async function ledgerLines(): Promise<unknown[]> {
  return (await readFile(ledger, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

function model() {
  return createOpenAICompatible({ name: 'fixture', baseURL: server.baseURL, apiKey: 'test-key' })('fixture-model');
}

// Real processes and the frameworks' runtimes: on a busy 2-core machine a run takes seconds.
describe('the Vercel AI SDK under Interlock (F56)', { timeout: 60_000 }, () => {
  it('runs a read at once, and a write once approved with an edit in another process (F56, F19, F21, F45)', async () => {
    const store = join(dir, 'interlock.db');
    const toolSet = appTools();
    approvals = await interlockApprovals({
      store: { type: 'sqlite', path: store },
      tools: POLICIES,
      toolSet,
      workspaceRoot: dir,
    });
    const tools = approvals.tools(toolSet, { sessionId: 'chat-1' });
    server.enqueue(
      {
        toolCalls: [
          { id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } },
          { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } },
        ],
      },
      { text: 'Notes written.' },
    );
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write the notes' }];
    const first = await generateText({ model: model(), tools, messages, stopWhen: stepCountIs(5) });
    expect(first.content.filter((part) => part.type === 'tool-approval-request')).toHaveLength(1);
    expect(await ledgerLines()).toEqual([{ tool: 'read_file', args: { path: 'README.md' } }]);

    const answerer = startJsonLineChild(
      ANSWER,
      [store, JSON.stringify({ approved: true, editedParameters: { path: 'notes.md', content: 'final' } })],
      {},
    );
    expect(await answerer.line((line) => 'answered' in line)).toMatchObject({
      answered: 'write_file',
      status: 'accepted',
    });

    const answer = await approvals.respond([...messages, ...first.response.messages], {
      sessionId: 'chat-1',
      wait: true,
    });
    expect(answer.status).toBe('ready');
    if (answer.status !== 'ready') return;
    const second = await generateText({ model: model(), tools, messages: answer.messages, stopWhen: stepCountIs(5) });
    expect(second.text).toBe('Notes written.');
    expect(await ledgerLines()).toEqual([
      { tool: 'read_file', args: { path: 'README.md' } },
      { tool: 'write_file', args: { path: 'notes.md', content: 'final' } },
    ]);
    // The edit replaces the call in the conversation: the model sees what ran (F19).
    expect(JSON.stringify(server.requests[1])).toContain('\\"content\\":\\"final\\"');
    expect(await approvals.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
  });

  it('refuses a banned command at once and tells the model a person’s reason for a rejection (F56, F14, F25)', async () => {
    const toolSet = appTools();
    approvals = await interlockApprovals({ tools: POLICIES, toolSet, workspaceRoot: dir });
    const tools = approvals.tools(toolSet, { sessionId: 'chat-2' });
    server.enqueue(
      {
        toolCalls: [
          { id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf /' } },
          { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'x' } },
        ],
      },
      { text: 'Understood.' },
    );
    const messages: ModelMessage[] = [{ role: 'user', content: 'Clean up' }];
    const first = await generateText({ model: model(), tools, messages, stopWhen: stepCountIs(5) });
    const conversation = [...messages, ...first.response.messages];
    expect(await approvals.respond(conversation, { sessionId: 'chat-2' })).toMatchObject({ status: 'waiting' });
    const [question] = await approvals.gate.interlock.pending();
    expect(question?.toolApproval?.toolName).toBe('write_file');
    await approvals.gate.interlock.respond(question!.interactionId, { approved: false, denyReason: 'not today' });
    const answer = await approvals.respond(conversation, { sessionId: 'chat-2', wait: true });
    if (answer.status !== 'ready') throw new Error('the answers are not ready');
    const second = await generateText({ model: model(), tools, messages: answer.messages, stopWhen: stepCountIs(5) });
    expect(second.text).toBe('Understood.');
    expect(await ledgerLines()).toEqual([]);
    const prompt = JSON.stringify(server.requests[1]);
    expect(prompt).toContain('shell:banned');
    expect(prompt).toContain('not today');
  });

  it('streams: a write waits in the inbox, is approved, runs once and the stream ends with the model’s text (F56)', async () => {
    const toolSet = appTools();
    approvals = await interlockApprovals({ tools: POLICIES, toolSet, workspaceRoot: dir });
    const tools = approvals.tools(toolSet, { sessionId: 'chat-stream' });
    server.enqueue(
      { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
      { text: 'Notes written, streamed piece by piece.' },
    );
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write the notes' }];
    const first = streamText({ model: model(), tools, messages, stopWhen: stepCountIs(5) });
    const kinds: string[] = [];
    for await (const part of first.fullStream) kinds.push(part.type);
    expect(kinds).toContain('tool-approval-request');
    expect(kinds).not.toContain('tool-result');
    expect(await ledgerLines()).toEqual([]);
    const conversation = [...messages, ...(await first.response).messages];
    expect(await approvals.respond(conversation, { sessionId: 'chat-stream' })).toMatchObject({ status: 'waiting' });

    const [question] = await approvals.gate.interlock.pending();
    expect(question?.toolApproval).toMatchObject({ toolName: 'write_file', toolParameters: { content: 'draft' } });
    await approvals.gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'ada' });
    const answer = await approvals.respond(conversation, { sessionId: 'chat-stream', wait: true });
    if (answer.status !== 'ready') throw new Error('the answers are not ready');
    const second = streamText({ model: model(), tools, messages: answer.messages, stopWhen: stepCountIs(5) });
    const deltas: string[] = [];
    for await (const delta of second.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Notes written, streamed piece by piece.');
    expect(await ledgerLines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
    expect(server.requests.map((request) => request['stream'])).toEqual([true, true]);
    expect(await approvals.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
  });

  it('applies an approval given hours after the question: by default it waits until answered (F56, F17)', async () => {
    const clock = movableClock();
    const toolSet = appTools();
    approvals = await interlockApprovals({ tools: POLICIES, toolSet, workspaceRoot: dir, clock: clock.clock });
    const tools = approvals.tools(toolSet, { sessionId: 'chat-late' });
    server.enqueue(
      { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
      { text: 'Done, at last.' },
    );
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write the notes' }];
    const first = await generateText({ model: model(), tools, messages, stopWhen: stepCountIs(5) });
    const conversation = [...messages, ...first.response.messages];
    const [question] = await approvals.gate.interlock.pending();
    clock.advance(3 * 60 * 60 * 1_000);
    expect(await approvals.gate.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
      status: 'accepted',
    });
    const answer = await approvals.respond(conversation, { sessionId: 'chat-late', wait: true });
    if (answer.status !== 'ready') throw new Error('the answers are not ready');
    const second = await generateText({ model: model(), tools, messages: answer.messages, stopWhen: stepCountIs(5) });
    expect(second.text).toBe('Done, at last.');
    expect(await ledgerLines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
  });

  it('with approvalTimeoutMs, refuses a late answer and tells the model nobody answered in time (F56, F17)', async () => {
    const clock = movableClock();
    const toolSet = appTools();
    approvals = await interlockApprovals({
      tools: POLICIES,
      toolSet,
      workspaceRoot: dir,
      clock: clock.clock,
      approvalTimeoutMs: 60_000,
    });
    const tools = approvals.tools(toolSet, { sessionId: 'chat-timeout' });
    server.enqueue(
      { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
      { text: 'Nobody approved it.' },
    );
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write the notes' }];
    const first = await generateText({ model: model(), tools, messages, stopWhen: stepCountIs(5) });
    const conversation = [...messages, ...first.response.messages];
    const [question] = await approvals.gate.interlock.pending();
    expect(question?.timeout).toBe(60_000);
    clock.advance(61_000);
    expect(await approvals.gate.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
      status: 'expired',
    });
    const answer = await approvals.respond(conversation, { sessionId: 'chat-timeout', wait: true });
    if (answer.status !== 'ready') throw new Error('the answers are not ready');
    expect(answer.decisions).toMatchObject([{ status: 'rejected', decidedBy: 'timeout' }]);
    const second = await generateText({ model: model(), tools, messages: answer.messages, stopWhen: stepCountIs(5) });
    expect(second.text).toBe('Nobody approved it.');
    expect(await ledgerLines()).toEqual([]);
    expect(JSON.stringify(server.requests[1])).toContain('nobody answered in time');
  });
  it('decides by the rules of the project file: its allow rule runs a write at once, its deny rule refuses one (F56, F23)', async () => {
    const configPath = join(dir, 'interlock.toml');
    await writeFile(
      configPath,
      `[approval]\ndenyRules = ['tool == "write_file" && args.path.startsWith("secrets")']\nallowRules = ['tool == "write_file" && args.path == "CHANGELOG.md"']\n`,
    );
    const config = await loadProjectConfig(configPath);
    const toolSet = appTools();
    approvals = await interlockApprovals({ config, tools: POLICIES, toolSet, workspaceRoot: dir });
    const tools = approvals.tools(toolSet, { sessionId: 'chat-config' });
    server.enqueue(
      {
        toolCalls: [
          { id: 'call_log', name: 'write_file', arguments: { path: 'CHANGELOG.md', content: 'entry' } },
          { id: 'call_secret', name: 'write_file', arguments: { path: 'secrets.env', content: 'KEY=1' } },
        ],
      },
      { text: 'The changelog is written.' },
    );
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write the changelog and the secrets' }];
    const first = await generateText({ model: model(), tools, messages, stopWhen: stepCountIs(5) });
    expect(await ledgerLines()).toEqual([{ tool: 'write_file', args: { path: 'CHANGELOG.md', content: 'entry' } }]);
    expect(await approvals.gate.interlock.pending()).toEqual([]);
    const answer = await approvals.respond([...messages, ...first.response.messages], { sessionId: 'chat-config' });
    if (answer.status !== 'ready') throw new Error('a rule should have decided every call');
    expect(answer.decisions).toMatchObject([{ status: 'rejected', decidedBy: 'deny-rule:0' }]);
    const second = await generateText({ model: model(), tools, messages: answer.messages, stopWhen: stepCountIs(5) });
    expect(second.text).toBe('The changelog is written.');
    expect(await ledgerLines()).toHaveLength(1);
    expect(JSON.stringify(server.requests[1])).toContain('deny-rule:0');
    expect((await approvals.gate.interlock.audit()).map((entry) => [entry.outcome, entry.rule]).sort()).toEqual([
      ['allow', 'allow-rule:0'],
      ['deny', 'deny-rule:0'],
    ]);
  });
});

/** A clock the test moves: the gate's deadlines and the answers' times are read from it. */
function movableClock(start = Date.parse('2026-11-26T09:00:00Z')) {
  let now = start;
  return { clock: { now: () => now }, advance: (ms: number) => (now += ms) };
}
