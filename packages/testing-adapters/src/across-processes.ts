import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterlock } from '@interlock/core';
import {
  startChatCompletionsServer,
  startJsonLineChild,
  type ChatCompletionsServer,
  type JsonLineChild,
} from '@interlock/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ledgerAt, type Ledger } from './ledger.js';

/** A message of a request to the model. */
export interface ModelMessage {
  role: string;
  content?: unknown;
}

/** The case of an adapter across processes: how its agent's process is started, and how the model sees an edit. */
export interface AcrossProcessesCase {
  /** The describe's and the test's names. */
  describe: string;
  it: string;
  /** The temporary directory's name starts `interlock-<prefix>-`. */
  prefix: string;
  /**
   * The agent's process (`test/*-process.mjs`): `ask` runs it until it pauses, `continue`
   * takes the paused run on; it reads MODEL_URL, LEDGER, STORE_PATH and WORKSPACE and
   * prints JSON lines (`{ outcome }`, `{ finished }`).
   */
  agentProcess: string;
  /** Holds that the model, asked again after the approval, saw the approver's edit (F19). */
  expectEditSeen(messages: ModelMessage[]): void;
}

/**
 * Pauses a write in one process, kills it, answers as the web inbox of a deployment does,
 * and another process runs the call once with the approver's edit (F56, F21, F40).
 */
export function acrossProcesses(given: AcrossProcessesCase): void {
  let server: ChatCompletionsServer;
  let dir: string;
  let ledger: Ledger;
  const children: JsonLineChild[] = [];
  const closers: (() => Promise<void>)[] = [];

  function child(mode: 'ask' | 'continue', store: string): JsonLineChild {
    const started = startJsonLineChild(given.agentProcess, [mode], {
      MODEL_URL: server.baseURL,
      LEDGER: ledger.path,
      STORE_PATH: store,
      WORKSPACE: dir,
    });
    children.push(started);
    return started;
  }

  // Real processes and the frameworks' runtimes: on a busy 2-core machine a run takes seconds.
  describe(given.describe, { timeout: 60_000 }, () => {
    beforeEach(async () => {
      server = await startChatCompletionsServer();
      dir = await mkdtemp(join(tmpdir(), `interlock-${given.prefix}-`));
      ledger = ledgerAt(join(dir, 'ledger.jsonl'));
      await ledger.reset();
    });

    afterEach(async () => {
      await Promise.all(children.splice(0).map((started) => started.kill()));
      for (const close of closers.splice(0)) await close();
      await server.close();
    });

    it(given.it, async () => {
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
      expect(await ledger.written()).toEqual([]);

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
      // A framework may run the two calls at once (the Agents SDK does): their order is its own.
      const written = (await ledger.written()).sort((left, right) => left.tool.localeCompare(right.tool));
      expect(written).toEqual([
        { tool: 'read_file', args: { path: 'README.md' }, pid: continuer.process.pid },
        { tool: 'write_file', args: { path: 'notes.md', content: 'final' }, pid: continuer.process.pid },
      ]);
      given.expectEditSeen((server.requests[1]?.['messages'] ?? []) as ModelMessage[]);
      expect(await inbox.verifyAudit()).toMatchObject({ valid: true });
      expect((await inbox.audit()).map((entry) => [entry.toolName, entry.outcome, entry.decidedBy])).toEqual(
        expect.arrayContaining([
          ['read_file', 'allow', 'category:read'],
          ['write_file', 'allow', 'person'],
        ]),
      );
    });
  });
}
