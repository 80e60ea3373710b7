import { join } from 'node:path';
import type { GatePending } from '@interlock/core';
import { until, type ChatCompletionsServer } from '@interlock/core/testing';
import { interlockCli, type Ledger } from '@interlock/testing-adapters';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { interlockApprovals, type InterlockApprovals } from '../index.js';
import { POLICIES } from './policies.js';

/** What the command-line cases share with the others: the test's state and its conversation helper. */
export interface CasesContext {
  readonly dir: string;
  readonly server: ChatCompletionsServer;
  readonly ledger: Ledger;
  approvals: InterlockApprovals | undefined;
  converse(
    sessionId: string,
    answer?: (pending: GatePending[]) => Promise<void>,
    prompt?: string,
  ): Promise<{ text: string; conversation: ModelMessage[] }>;
  prompts(): string;
}

/** Answers given with the built `interlock` command, as a person at another terminal gives them (F56, F62, F19). */
export function cliCases(major: 6 | 7, context: CasesContext): void {
  /**
   * The adapter on a SQLite store the command can answer in (with `approvalTimeoutMs`
   * where given), and a model that writes notes.md, then says `text`: the store's path.
   */
  async function writeOnAStore(text: string, approvalTimeoutMs?: number): Promise<string> {
    const store = join(context.dir, 'interlock.db');
    context.approvals = await interlockApprovals({
      store: { type: 'sqlite', path: store },
      tools: POLICIES,
      workspaceRoot: context.dir,
      ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
    });
    context.server.enqueue(
      { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
      { text },
    );
    return store;
  }

  /** The id of the question the gate waits on. */
  async function questionId(): Promise<string> {
    const [asked] = await context.approvals!.gate.interlock.pending();
    return asked!.interactionId;
  }

  describe(`AI SDK ${major}: answers from the command line (F56, F62, F19)`, { timeout: 90_000 }, () => {
    it('refuses an edit that breaks the tool’s schema (exit 1, the question stays open) with tools as the README declares them', async () => {
      const store = await writeOnAStore('Written.');
      const { text } = await context.converse('chat-schema', async () => {
        const id = await questionId();
        const refused = await interlockCli(store, ['respond', id, 'edit', '{"path":"notes.md","content":42}']);
        expect(refused.code).toBe(1);
        expect(refused.stderr + refused.stdout).toContain('content');
        expect((await context.approvals!.gate.interlock.pending()).map((open) => open.interactionId)).toEqual([id]);
        expect((await interlockCli(store, ['respond', id, 'approve'])).code).toBe(0);
      });
      expect(text).toBe('Written.');
      expect(await context.ledger.lines()).toEqual([
        { tool: 'write_file', args: { path: 'notes.md', content: 'draft' } },
      ]);
      expect(context.prompts()).not.toMatch(/\/[\w.-]+\/[\w.-]+\.(?:js|ts):\d+/);
    });

    it('a second approver after a rejection leaves the model reading the first reason', async () => {
      const store = await writeOnAStore('Waiting for the review.');
      const { text } = await context.converse('chat-second', async ([pending]) => {
        const id = await questionId();
        expect((await interlockCli(store, ['respond', id, 'reject', '--reason', 'not before the review'])).code).toBe(
          0,
        );
        await untilEnded(context.approvals!, pending!.threadId);
        expect((await interlockCli(store, ['respond', id, 'approve'])).code).toBe(4);
      });
      expect(text).toBe('Waiting for the review.');
      expect(await context.ledger.lines()).toEqual([]);
      expect(context.prompts()).toContain('not before the review');
      expect(context.prompts()).not.toContain('attempt');
    });

    it('a late answer after the deadline leaves the model reading that nobody answered in time (F17)', async () => {
      const store = await writeOnAStore('Nobody approved it.', 1_000);
      const { text } = await context.converse('chat-timeout', async ([pending]) => {
        const id = await questionId();
        await untilEnded(context.approvals!, pending!.threadId);
        expect((await interlockCli(store, ['respond', id, 'approve'])).code).toBe(5);
      });
      expect(text).toBe('Nobody approved it.');
      expect(await context.ledger.lines()).toEqual([]);
      expect(context.prompts()).toContain('nobody answered in time');
      expect(context.prompts()).not.toContain('attempt');
      expect((await context.approvals!.gate.interlock.audit()).at(-1)).toMatchObject({ decidedBy: 'attempt' });
    });
  });
}

/** Waits until a decision thread has ended, as the gate's worker takes it there. */
function untilEnded(approvals: InterlockApprovals, threadId: string) {
  return until(
    'the decision to end',
    () => approvals.gate.interlock.thread(threadId),
    (thread) => thread !== undefined && ['completed', 'failed', 'cancelled'].includes(thread.status),
  );
}
