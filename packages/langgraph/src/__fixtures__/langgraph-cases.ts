import { join } from 'node:path';
import {
  agentHarness,
  appliesLateApprovalAndTimesOut,
  asksAgainForAnEditedId,
  decidesByTheProjectRules,
  decidesReusedIdOnItsOwn,
  decidesTwoCallsUnderOneId,
  interlockCli,
  keepsTheFirstReasonFromTheCli,
  refusesBannedAndToldReason,
  tellsOfALateAnswerFromTheCli,
  type AgentDriver,
} from '@interlock/testing-adapters';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the tests' agent is plain JavaScript, shared with the child processes
import { testAgent, TOOL_POLICIES } from '../../test/test-agent.mjs';
import { interlockGraph, type InterlockGraph, type InterlockGraphOptions } from '../index.js';

type Options = Omit<InterlockGraphOptions, 'graph' | 'checkpointer'>;

function lastContent(result: unknown): unknown {
  return (result as { messages: { content: unknown }[] }).messages.at(-1)?.content;
}

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

/** The graph under Interlock, tools as the README declares them; a thread runs on the user's message. */
const LANGGRAPH: AgentDriver<InterlockGraph, Options> = {
  prefix: 'langgraph',
  gateName: 'langgraph',
  async open(options, { baseURL, ledger, dir }, finished) {
    const { graph, checkpointer } = testAgent({ baseURL, ledger });
    return interlockGraph({
      graph,
      checkpointer,
      tools: TOOL_POLICIES,
      workspaceRoot: dir,
      ...options,
      onFinished: async (result, pause) => {
        finished(lastContent(result));
        await options?.onFinished?.(result, pause);
      },
    });
  },
  async start(guarded, prompt, threadId) {
    const outcome = await guarded.invoke(ask(prompt), { threadId });
    return outcome.status === 'completed' ? { status: 'completed', output: lastContent(outcome.result) } : outcome;
  },
};

/** The adapter's tests through LangGraph's runtime: a LangChain 1 agent with `humanInTheLoopMiddleware`. */
export function langGraphCases(label: string): void {
  const h = agentHarness(LANGGRAPH);

  describe(
    `LangGraph ${label} (a LangChain 1 agent with humanInTheLoopMiddleware) under Interlock (F56, F61)`,
    { timeout: 90_000 },
    () => {
      refusesBannedAndToldReason(h);

      // One call per turn: LangChain's middleware runs none of a turn's calls when one of them is rejected.
      decidesByTheProjectRules(h, { oneCallPerTurn: true });

      it('streams the model’s tokens: a write waits in the inbox, is approved, runs once and the resumed stream ends with the model’s text (F56)', async () => {
        h.server.enqueue(
          { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
          { text: 'Notes written, streamed piece by piece.' },
        );
        const chunks: unknown[] = [];
        const { guarded, finished } = await h.guard({
          streamMode: 'messages',
          onStreamChunk: (chunk) => void chunks.push(chunk),
        });
        const output = finished();
        expect(await guarded.invoke(ask('Write the notes'), { threadId: 'streamed' })).toMatchObject({
          status: 'paused',
        });
        expect(await h.ledger.lines()).toEqual([]);
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
        expect(await h.ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
        expect(h.server.requests.map((request) => request['stream'])).toEqual([true, true]);
      });

      appliesLateApprovalAndTimesOut(h);
    },
  );

  describe(
    `LangGraph ${label}: a decision is bound to exactly the call it decided (F56, F62)`,
    { timeout: 90_000 },
    () => {
      decidesReusedIdOnItsOwn(h);
      decidesTwoCallsUnderOneId(h);
      asksAgainForAnEditedId(h);
    },
  );

  describe(`LangGraph ${label}: answers from the command line (F56, F62, F19)`, { timeout: 90_000 }, () => {
    it('refuses an edit that breaks the tool’s zod schema (exit 1, the question stays open) with tools as the README declares them', async () => {
      const store = join(h.dir, 'interlock.db');
      h.server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Written.' },
      );
      const { guarded, finished } = await h.guard({ store: { type: 'sqlite', path: store } });
      const output = finished();
      expect(await guarded.invoke(ask('Write the notes'), { threadId: 'schema' })).toMatchObject({ status: 'paused' });
      const [question] = await guarded.gate.interlock.pending();
      const id = question!.interactionId;
      const refused = await interlockCli(store, ['respond', id, 'edit', '{"path":"notes.md","content":42}']);
      expect(refused.code).toBe(1);
      expect(refused.stderr + refused.stdout).toMatch(/schema/);
      expect((await guarded.gate.interlock.pending()).map((open) => open.interactionId)).toEqual([id]);
      expect((await interlockCli(store, ['respond', id, 'edit', '{"path":"notes.md","content":"final"}'])).code).toBe(
        0,
      );
      expect(await output).toBe('Written.');
      expect(await h.ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'final' } }]);
      // No LangChain schema error, no stack with the server's paths, reaches the model.
      expect(h.prompts()).not.toMatch(/\/[\w.-]+\/[\w.-]+\.(?:js|ts|mjs):\d+/);
    });

    keepsTheFirstReasonFromTheCli(h);
    tellsOfALateAnswerFromTheCli(h);
  });
}
