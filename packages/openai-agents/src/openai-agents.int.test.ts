import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterlock, loadProjectConfig } from '@interlock/core';
import type { RunStreamEvent } from '@openai/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- the tests' agent is plain JavaScript, shared with the child processes
import { testAgent, TOOL_POLICIES } from '../test/test-agent.mjs';
import { startChatCompletionsServer, type ChatCompletionsServer } from '@interlock/core/testing';
import { startJsonLineChild, type JsonLineChild } from '@interlock/core/testing';
import { interlockAgent } from './index.js';

const AGENT_PROCESS = fileURLToPath(new URL('../test/agent-process.mjs', import.meta.url));

let server: ChatCompletionsServer;
let dir: string;
let ledger: string;
const children: JsonLineChild[] = [];
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  server = await startChatCompletionsServer();
  dir = await mkdtemp(join(tmpdir(), 'interlock-openai-agents-'));
  ledger = join(dir, 'ledger.jsonl');
  await writeFile(ledger, '');
});

afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
  for (const close of closers.splice(0)) await close();
  await server.close();
});

async function ledgerLines(): Promise<{ tool: string; args: Record<string, unknown>; pid: number }[]> {
  return (await readFile(ledger, 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { tool: string; args: Record<string, unknown>; pid: number });
}

function child(mode: 'ask' | 'continue', store: string): JsonLineChild {
  const started = startJsonLineChild(AGENT_PROCESS, [mode], {
    MODEL_URL: server.baseURL,
    LEDGER: ledger,
    STORE_PATH: store,
    WORKSPACE: dir,
  });
  children.push(started);
  return started;
}

function messagesOf(request: Record<string, unknown> | undefined): { role: string; content?: unknown }[] {
  return (request?.['messages'] ?? []) as { role: string; content?: unknown }[];
}

// Real processes and the frameworks' runtimes: on a busy 2-core machine a run takes seconds.
describe('the OpenAI Agents SDK under Interlock (F56)', { timeout: 60_000 }, () => {
  it('pauses a write, survives the asking process being killed, and another process runs it once with the approver’s edit (F56, F21, F40)', async () => {
    const store = join(dir, 'interlock.db');
    server.enqueue(
      {
        toolCalls: [
          { id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } },
          { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } },
        ],
      },
      { text: 'Notes written.' },
    );
    const asker = child('ask', store);
    expect(await asker.line((line) => 'outcome' in line)).toMatchObject({ outcome: 'paused' });
    await asker.kill();
    expect(await ledgerLines()).toEqual([]);

    // The web inbox of a deployment answers this way: it stores the answer and a job for a worker.
    const inbox = await createInterlock({ store: { type: 'sqlite', path: store }, continueIn: 'workers-only' });
    closers.push(() => inbox.close());
    const [question] = await inbox.pending();
    expect(question?.toolApproval).toMatchObject({ toolName: 'write_file', toolParameters: { content: 'draft' } });
    await inbox.respond(
      question!.interactionId,
      { approved: true, editedParameters: { path: 'notes.md', content: 'final' } },
      { responder: 'ada' },
    );

    const continuer = child('continue', store);
    expect(await continuer.line((line) => 'finished' in line)).toMatchObject({ finished: 'Notes written.' });
    expect(await ledgerLines()).toEqual([
      { tool: 'read_file', args: { path: 'README.md' }, pid: continuer.process.pid },
      { tool: 'write_file', args: { path: 'notes.md', content: 'final' }, pid: continuer.process.pid },
    ]);
    const toolMessages = messagesOf(server.requests[1]).filter((message) => message.role === 'tool');
    expect(JSON.stringify(toolMessages)).toContain('The approver edited the arguments');
    expect(await inbox.verifyAudit()).toMatchObject({ valid: true });
    expect((await inbox.audit()).map((entry) => [entry.toolName, entry.outcome, entry.decidedBy])).toEqual(
      expect.arrayContaining([
        ['read_file', 'allow', 'category:read'],
        ['write_file', 'allow', 'person'],
      ]),
    );
  });

  it('refuses a banned command at once and tells the model a person’s reason for a rejection (F56, F14, F25, F45)', async () => {
    server.enqueue(
      { toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf /' } }] },
      { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'x' } }] },
      { text: 'Understood.' },
    );
    let finished: (output: unknown) => void = () => undefined;
    const output = new Promise<unknown>((resolve) => (finished = resolve));
    const guarded = await interlockAgent({
      agent: testAgent({ baseURL: server.baseURL, ledger }),
      tools: TOOL_POLICIES,
      workspaceRoot: dir,
      onFinished: (result) => finished(result.finalOutput),
    });
    closers.push(() => guarded.close());
    expect(await guarded.run('Clean up')).toMatchObject({ status: 'paused' });
    const [question] = await guarded.gate.interlock.pending();
    await guarded.gate.interlock.respond(question!.interactionId, { approved: false, denyReason: 'not today' });
    expect(await output).toBe('Understood.');
    expect(await ledgerLines()).toEqual([]);
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
    const config = await loadProjectConfig(configPath);
    server.enqueue(
      {
        toolCalls: [
          { id: 'call_log', name: 'write_file', arguments: { path: 'CHANGELOG.md', content: 'entry' } },
          { id: 'call_secret', name: 'write_file', arguments: { path: 'secrets.env', content: 'KEY=1' } },
        ],
      },
      { text: 'The changelog is written.' },
    );
    const guarded = await interlockAgent({
      agent: testAgent({ baseURL: server.baseURL, ledger }),
      config,
      tools: TOOL_POLICIES,
      workspaceRoot: dir,
    });
    closers.push(() => guarded.close());
    expect(await guarded.run('Write the changelog and the secrets')).toMatchObject({
      status: 'completed',
      finalOutput: 'The changelog is written.',
    });
    expect((await ledgerLines()).map(({ tool, args }) => ({ tool, args }))).toEqual([
      { tool: 'write_file', args: { path: 'CHANGELOG.md', content: 'entry' } },
    ]);
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
    let finished: (output: unknown) => void = () => undefined;
    const output = new Promise<unknown>((resolve) => (finished = resolve));
    const guarded = await interlockAgent({
      agent: testAgent({ baseURL: server.baseURL, ledger }),
      tools: TOOL_POLICIES,
      workspaceRoot: dir,
      onStreamEvent: (event) => void events.push(event),
      onFinished: (result) => finished(result.finalOutput),
    });
    closers.push(() => guarded.close());
    expect(await guarded.run('Write the notes')).toMatchObject({ status: 'paused' });
    expect(await ledgerLines()).toEqual([]);
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
    expect((await ledgerLines()).map(({ tool, args }) => ({ tool, args }))).toEqual([
      { tool: 'write_file', args: { path: 'notes.md', content: 'draft' } },
    ]);
    expect(server.requests.map((request) => request['stream'])).toEqual([true, true]);
    expect(await guarded.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
  });

  it('applies an approval given hours after the question, and with approvalTimeoutMs rejects a late one as timed out (F56, F17)', async () => {
    let now = Date.parse('2026-11-26T09:00:00Z');
    const clock = { now: () => now };
    const outputs: unknown[] = [];
    let finished: () => void = () => undefined;
    const start = async (name: string, approvalTimeoutMs?: number) => {
      const guarded = await interlockAgent({
        agent: testAgent({ baseURL: server.baseURL, ledger }),
        name,
        tools: TOOL_POLICIES,
        workspaceRoot: dir,
        clock,
        ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
        onFinished: (result) => (outputs.push(result.finalOutput), finished()),
      });
      closers.push(() => guarded.close());
      return guarded;
    };
    const write = { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } };
    server.enqueue({ toolCalls: [write] }, { text: 'Done, at last.' });
    const patient = await start('patient');
    expect(await patient.run('Write the notes')).toMatchObject({ status: 'paused' });
    const [question] = await patient.gate.interlock.pending();
    now += 3 * 60 * 60 * 1_000;
    let done = new Promise<void>((resolve) => (finished = resolve));
    expect(await patient.gate.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
      status: 'accepted',
    });
    await done;
    expect(outputs).toEqual(['Done, at last.']);
    expect((await ledgerLines()).map(({ tool }) => tool)).toEqual(['write_file']);

    server.enqueue({ toolCalls: [{ ...write, id: 'call_write_2' }] }, { text: 'Nobody approved it.' });
    const hurried = await start('hurried', 60_000);
    expect(await hurried.run('Write the notes again')).toMatchObject({ status: 'paused' });
    const [late] = await hurried.gate.interlock.pending();
    expect(late?.timeout).toBe(60_000);
    now += 61_000;
    done = new Promise<void>((resolve) => (finished = resolve));
    expect(await hurried.gate.interlock.respond(late!.interactionId, { approved: true })).toMatchObject({
      status: 'expired',
    });
    await done;
    expect(outputs).toEqual(['Done, at last.', 'Nobody approved it.']);
    expect((await ledgerLines()).map(({ tool }) => tool)).toEqual(['write_file']);
    expect(JSON.stringify(messagesOf(server.requests.at(-1)))).toContain('nobody answered in time');
  });
});
