import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterlock } from '@interlock/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChatCompletionsServer, type ChatCompletionsServer } from '@interlock/core/testing';
import { startJsonLineChild, type JsonLineChild } from '@interlock/core/testing';
import { langGraphCases } from './__fixtures__/langgraph-cases.js';

const AGENT_PROCESS = fileURLToPath(new URL('../test/graph-process.mjs', import.meta.url));

let server: ChatCompletionsServer;
let dir: string;
let ledger: string;
const children: JsonLineChild[] = [];
const closers: (() => Promise<void>)[] = [];

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
  'LangGraph (a LangChain 1 agent with humanInTheLoopMiddleware) under Interlock, across processes (F56)',
  { timeout: 60_000 },
  () => {
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
  },
);

// The current releases of LangGraph and LangChain (F56, F61).
langGraphCases('1');
