import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterlock, loadProjectConfig } from '@interlock/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- the tests' agent is plain JavaScript, shared with the child processes
import { testAgent, TOOL_POLICIES } from '../test/test-agent.mjs';
import { startChatCompletionsServer, type ChatCompletionsServer } from '@interlock/core/testing';
import { startJsonLineChild, type JsonLineChild } from '@interlock/core/testing';
import { interlockGraph } from './index.js';

const AGENT_PROCESS = fileURLToPath(new URL('../test/graph-process.mjs', import.meta.url));

let server: ChatCompletionsServer;
let dir: string;
let ledger: string;
const children: JsonLineChild[] = [];
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  server = await startChatCompletionsServer();
  dir = await mkdtemp(join(tmpdir(), 'interlock-langgraph-'));
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
describe(
  'LangGraph (a LangChain 1 agent with humanInTheLoopMiddleware) under Interlock (F56)',
  { timeout: 60_000 },
  () => {
    it('pauses a write, survives the asking process being killed, and another process runs it once with the approver’s edit (F56, F19, F21, F40)', async () => {
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
      // The edit replaces the call in the conversation: the model sees what ran (F19).
      const assistant = messagesOf(server.requests[1]).find((message) => message.role === 'assistant') as
        { tool_calls?: { function: { name: string; arguments: string } }[] } | undefined;
      expect(
        assistant?.tool_calls?.map((call) => [call.function.name, JSON.parse(call.function.arguments)]),
      ).toContainEqual(['write_file', { path: 'notes.md', content: 'final' }]);
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
      const { graph, checkpointer } = testAgent({ baseURL: server.baseURL, ledger });
      const guarded = await interlockGraph({
        graph,
        checkpointer,
        tools: TOOL_POLICIES,
        workspaceRoot: dir,
        onFinished: (result) => finished((result as { messages: { content: unknown }[] }).messages.at(-1)?.content),
      });
      closers.push(() => guarded.close());
      expect(
        await guarded.invoke({ messages: [{ role: 'user', content: 'Clean up' }] }, { threadId: 'cleanup' }),
      ).toMatchObject({ status: 'paused' });
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
      // One call per turn: LangChain's middleware runs none of a turn's calls when one of them is rejected.
      server.enqueue(
        { toolCalls: [{ id: 'call_log', name: 'write_file', arguments: { path: 'CHANGELOG.md', content: 'entry' } }] },
        {
          toolCalls: [{ id: 'call_secret', name: 'write_file', arguments: { path: 'secrets.env', content: 'KEY=1' } }],
        },
        { text: 'The changelog is written.' },
      );
      const { graph, checkpointer } = testAgent({ baseURL: server.baseURL, ledger });
      const guarded = await interlockGraph({ graph, checkpointer, config, tools: TOOL_POLICIES, workspaceRoot: dir });
      closers.push(() => guarded.close());
      const outcome = await guarded.invoke(
        { messages: [{ role: 'user', content: 'Write the changelog and the secrets' }] },
        { threadId: 'config' },
      );
      expect(outcome.status).toBe('completed');
      expect(
        outcome.status === 'completed' &&
          (outcome.result as { messages: { content: unknown }[] }).messages.at(-1)?.content,
      ).toBe('The changelog is written.');
      expect((await ledgerLines()).map(({ tool, args }) => ({ tool, args }))).toEqual([
        { tool: 'write_file', args: { path: 'CHANGELOG.md', content: 'entry' } },
      ]);
      expect(JSON.stringify(messagesOf(server.requests[2]))).toContain('deny-rule:0');
      expect((await guarded.gate.interlock.audit()).map((entry) => [entry.outcome, entry.rule]).sort()).toEqual([
        ['allow', 'allow-rule:0'],
        ['deny', 'deny-rule:0'],
      ]);
    });

    it('streams the model’s tokens: a write waits in the inbox, is approved, runs once and the resumed stream ends with the model’s text (F56)', async () => {
      server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Notes written, streamed piece by piece.' },
      );
      const chunks: unknown[] = [];
      let finished: (output: unknown) => void = () => undefined;
      const output = new Promise<unknown>((resolve) => (finished = resolve));
      const { graph, checkpointer } = testAgent({ baseURL: server.baseURL, ledger });
      const guarded = await interlockGraph({
        graph,
        checkpointer,
        tools: TOOL_POLICIES,
        workspaceRoot: dir,
        streamMode: 'messages',
        onStreamChunk: (chunk) => void chunks.push(chunk),
        onFinished: (result) => finished((result as { messages: { content: unknown }[] }).messages.at(-1)?.content),
      });
      closers.push(() => guarded.close());
      expect(
        await guarded.invoke({ messages: [{ role: 'user', content: 'Write the notes' }] }, { threadId: 'streamed' }),
      ).toMatchObject({ status: 'paused' });
      expect(await ledgerLines()).toEqual([]);
      const beforeAnswer = chunks.length;
      expect(beforeAnswer).toBeGreaterThan(0);

      const [question] = await guarded.gate.interlock.pending();
      expect(question?.toolApproval).toMatchObject({ toolName: 'write_file', toolParameters: { content: 'draft' } });
      await guarded.gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'ada' });
      expect(await output).toBe('Notes written, streamed piece by piece.');
      // `messages` mode: [message chunk, metadata]; the model node's chunks are the tokens as they came.
      const tokens = chunks.slice(beforeAnswer).flatMap((chunk) => {
        const [message, metadata] = chunk as [{ content?: unknown }, { langgraph_node?: string }];
        return metadata.langgraph_node === 'model_request' &&
          typeof message.content === 'string' &&
          message.content !== ''
          ? [message.content]
          : [];
      });
      expect(tokens.length).toBeGreaterThan(1);
      expect(tokens.join('')).toBe('Notes written, streamed piece by piece.');
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
        const { graph, checkpointer } = testAgent({ baseURL: server.baseURL, ledger });
        const guarded = await interlockGraph({
          graph,
          checkpointer,
          name,
          tools: TOOL_POLICIES,
          workspaceRoot: dir,
          clock,
          ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
          onFinished: (result) => {
            outputs.push((result as { messages: { content: unknown }[] }).messages.at(-1)?.content);
            finished();
          },
        });
        closers.push(() => guarded.close());
        return guarded;
      };
      const write = { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } };
      server.enqueue({ toolCalls: [write] }, { text: 'Done, at last.' });
      const patient = await start('patient');
      expect(
        await patient.invoke({ messages: [{ role: 'user', content: 'Write the notes' }] }, { threadId: 'patient' }),
      ).toMatchObject({ status: 'paused' });
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
      expect(
        await hurried.invoke(
          { messages: [{ role: 'user', content: 'Write the notes again' }] },
          { threadId: 'hurried' },
        ),
      ).toMatchObject({ status: 'paused' });
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
  },
);
