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
import type { RunStreamEvent } from '@openai/agents';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the tests' agent is plain JavaScript, shared with the child processes
import { testAgent, TOOL_POLICIES } from '../../test/test-agent.mjs';
import { interlockAgent, type InterlockAgent, type InterlockAgentOptions } from '../index.js';

type TestAgent = ReturnType<typeof testAgent>;
type Options = Omit<InterlockAgentOptions<TestAgent>, 'agent'>;

/** The agent under Interlock, tools as the README declares them; a run takes the user's message. */
const OPENAI_AGENTS: AgentDriver<InterlockAgent<TestAgent>, Options> = {
  prefix: 'openai-agents',
  gateName: 'openai-agents.notes-agent',
  open: (options, { baseURL, ledger, dir }, finished) =>
    interlockAgent({
      agent: testAgent({ baseURL, ledger }),
      tools: TOOL_POLICIES,
      workspaceRoot: dir,
      ...options,
      onFinished: async (result, pause) => {
        finished(result.finalOutput);
        await options?.onFinished?.(result, pause);
      },
    }),
  async start(guarded, prompt) {
    const outcome = await guarded.run(prompt);
    return outcome.status === 'completed' ? { status: 'completed', output: outcome.finalOutput } : outcome;
  },
};

/**
 * The adapter's tests through the real runtime of the OpenAI Agents SDK `version` (the
 * test file imports that version as `@openai/agents`, with the `openai` it was built for).
 */
export function openAiAgentsCases(version: string): void {
  const h = agentHarness(OPENAI_AGENTS);

  describe(`the OpenAI Agents SDK ${version} under Interlock (F56, F61)`, { timeout: 90_000 }, () => {
    refusesBannedAndToldReason(h);

    decidesByTheProjectRules(h, { oneCallPerTurn: false });

    it('streams: a write waits in the inbox, is approved, runs once and the continued stream ends with the model’s text (F56)', async () => {
      h.server.enqueue(
        { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }] },
        { text: 'Notes written, streamed piece by piece.' },
      );
      const events: RunStreamEvent[] = [];
      const { guarded, finished } = await h.guard({ onStreamEvent: (event) => void events.push(event) });
      const output = finished();
      expect(await guarded.run('Write the notes')).toMatchObject({ status: 'paused' });
      expect(await h.ledger.lines()).toEqual([]);
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
      expect(await h.ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
      expect(h.server.requests.map((request) => request['stream'])).toEqual([true, true]);
      expect(await guarded.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
    });

    appliesLateApprovalAndTimesOut(h);
  });

  describe(
    `OpenAI Agents SDK ${version}: a decision is bound to exactly the call it decided (F56, F62)`,
    { timeout: 90_000 },
    () => {
      decidesReusedIdOnItsOwn(h);
      decidesTwoCallsUnderOneId(h);
      asksAgainForAnEditedId(h);
    },
  );

  describe(`OpenAI Agents SDK ${version}: answers from the command line (F56, F62, F19)`, { timeout: 90_000 }, () => {
    it('refuses an edit that breaks the tool’s parameters (exit 1, the question stays open), for a tool left out of `tools` too', async () => {
      const store = join(h.dir, 'interlock.db');
      h.server.enqueue(
        {
          toolCalls: [
            { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } },
            { id: 'call_bash', name: 'bash', arguments: { command: 'make notes' } },
          ],
        },
        { text: 'Written.' },
      );
      // As the README declares them: categories and risks, no JSON Schema; bash is left out.
      const { guarded, finished } = await h.guard({
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
      expect(await h.ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'notes.md', content: 'draft' } }]);
      expect(h.prompts()).not.toMatch(/\/[\w.-]+\/[\w.-]+\.(?:js|ts):\d+/);
    });

    keepsTheFirstReasonFromTheCli(h);
    tellsOfALateAnswerFromTheCli(h);
  });
}
