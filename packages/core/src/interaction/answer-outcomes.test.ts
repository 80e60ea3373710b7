import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { WorkflowDefinitionInput } from '@interlock/sdk-types';
import {
  agentTool,
  builtinTools,
  createInterlock,
  defineTool,
  scriptedModel,
  type Interlock,
  type ModelProvider,
} from '../index.js';
import { InMemoryCheckpointStore } from '../testing/index.js';
import { agentWrite } from './__fixtures__/agent-write.js';

/*
 * What respond() tells an answerer (issue 28): an answer the pipeline would refuse is refused
 * when it is given, where the tool is not held too; a second person's answer is not taken
 * for a repeat of the first's; a repeat after the thread ended says it ended.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  category: 'network',
  riskLevel: 'HIGH',
  parameters: z.object({ order: z.string(), cents: z.number().int() }),
  execute: async ({ cents }) => `refunded ${cents}`,
});

/** START → a model that proposes one call of `tool` → END (the call waits for a person: approvalTimeout 1h). */
function agentWorkflow(tool: string): WorkflowDefinitionInput {
  return {
    id: `agent-${tool.toLowerCase()}`,
    name: 'Agent',
    version: '1',
    config: { toolApproval: { autoApprovedTools: [], approvalTimeout: '1h' } },
    variables: [{ name: 'output', scope: 'thread' }],
    nodes: [
      { id: 'start', type: 'START' },
      { id: 'agent', type: 'LLM', config: { systemPrompt: 'Act.', tools: [tool], outputVariable: 'output' } },
      { id: 'end', type: 'END', config: { output: '{{ output }}' } },
    ],
    edges: [
      { from: 'start', to: 'agent' },
      { from: 'agent', to: 'end' },
    ],
  };
}

/** START → a decide-only TOOL node about Claude Code's `Write` of notes.md (as `interlock mcp serve` asks) → END. */
const AGENT_WRITE = agentWrite('agent-write', 'notes.md');

function proposing(name: string, args: Record<string, unknown>): ModelProvider {
  return scriptedModel((request) =>
    request.messages.some((message) => message.role === 'tool')
      ? String(request.messages.find((message) => message.role === 'tool')?.content)
      : { text: 'On it.', toolCalls: [{ id: 'call-1', name, arguments: args }] },
  );
}

/**
 * A thread that waits for a person to approve one call, run by a process that holds the
 * tool, and an answerer on the same store that holds none (a deployment's inbox).
 */
async function waitingCall(workflow: WorkflowDefinitionInput, model: ModelProvider) {
  const store = new InMemoryCheckpointStore();
  const workspaceRoot = await mkdtemp(join(tmpdir(), 'interlock-answers-'));
  const approval = { denyRules: ['tool == "refund" && args.cents > 10000'] };
  const runner = await createInterlock({
    store: { type: 'custom', store },
    tools: [...builtinTools, refund],
    toolFallback: (name) => agentTool(name, workspaceRoot),
    models: { default: model },
    workspaceRoot,
    approval,
  });
  const answerer = await createInterlock({
    store: { type: 'custom', store },
    continueIn: 'workers-only',
    workspaceRoot,
    approval,
  });
  closers.push(() => runner.close());
  const outcome = await (await runner.start(runner.registerWorkflow(workflow), { channel: 'web' })).done();
  expect(outcome.status).toBe('waiting');
  const [request] = await answerer.pending();
  if (request === undefined) throw new Error('nothing waits');
  return { runner, answerer, request };
}

async function statusOf(interlock: Interlock, interactionId: string) {
  const [record] = (await interlock.interactions()).filter((found) => found.interactionId === interactionId);
  return record?.status;
}

describe('an edit the pipeline would refuse is refused when it is given (issue 28, F19, F46)', () => {
  it.each([
    { tool: 'bash', proposed: { command: 'ls' }, edited: { command: 'rm -rf /' }, rule: 'shell:banned' },
    { tool: 'bash', proposed: { command: 'ls' }, edited: { command: 'mkfs.ext4 /dev/sda1' }, rule: 'shell:banned' },
    {
      tool: 'bash',
      proposed: { command: 'ls' },
      edited: { command: 'echo hi && dd if=/dev/zero of=/dev/sda' },
      rule: 'shell:banned',
    },
    {
      tool: 'write_file',
      proposed: { path: 'a.txt', content: 'a' },
      edited: { path: '/etc/cron.d/job', content: 'x' },
      rule: 'path:outside-workspace',
    },
    {
      tool: 'write_file',
      proposed: { path: 'a.txt', content: 'a' },
      edited: { path: '../../home/ada/notes', content: 'x' },
      rule: 'path:outside-workspace',
    },
    {
      tool: 'edit_file',
      proposed: { path: 'a.txt', find: 'a', replace: 'b' },
      edited: { path: '.interlock/interlock.db', find: 'a', replace: 'b' },
      rule: 'path:protected:interlock',
    },
    {
      tool: 'refund',
      proposed: { order: 'A-1', cents: 500 },
      edited: { order: 'A-1', cents: 25_000 },
      rule: 'deny-rule:0',
    },
  ])(
    'refuses $tool edited to $edited where the tool is not held, with the rule, and the question stays open',
    async ({ tool, proposed, edited, rule }) => {
      const { answerer, request } = await waitingCall(agentWorkflow(tool), proposing(tool, proposed));
      const answer = { approved: true, editedParameters: edited };
      const check = await answerer.checkResponse(request.interactionId, answer);
      expect(check).toMatchObject({ ok: false, message: expect.stringContaining(rule) });
      await expect(answerer.respond(request.interactionId, answer, { responder: 'web:ada' })).rejects.toMatchObject({
        code: 'INTERACTION_INVALID_RESPONSE',
        message: expect.stringContaining(rule),
      });
      expect(await statusOf(answerer, request.interactionId)).toBe('pending');
      // The question is still open: a valid answer is taken.
      expect(
        await answerer.respond(request.interactionId, { approved: false }, { responder: 'web:ada' }),
      ).toMatchObject({ status: 'accepted', continuation: { status: 'scheduled' } });
    },
  );

  it.each([
    { path: '/etc/hosts', refused: true },
    { path: '../elsewhere/a.md', refused: true },
    { path: 'docs/a.md', refused: false },
  ])(
    'checks the path of an agent’s Write edited to $path as the MCP approval server will',
    async ({ path, refused }) => {
      const { answerer, request } = await waitingCall(AGENT_WRITE, scriptedModel([]));
      const answer = { approved: true, editedParameters: { file_path: path, content: 'x' } };
      const result = answerer.respond(request.interactionId, answer, { responder: 'cli:ada' });
      if (refused) {
        await expect(result).rejects.toMatchObject({ message: expect.stringContaining('path:outside-workspace') });
        expect(await statusOf(answerer, request.interactionId)).toBe('pending');
      } else {
        await expect(result).resolves.toMatchObject({ status: 'accepted' });
      }
    },
  );

  it('takes an edit the rules allow, and refuses the same edit in the process that holds the tool too', async () => {
    const { runner, answerer, request } = await waitingCall(
      agentWorkflow('bash'),
      proposing('bash', { command: 'ls' }),
    );
    expect(
      await runner.checkResponse(request.interactionId, { approved: true, editedParameters: { command: 'rm -rf /' } }),
    ).toMatchObject({ ok: false, message: expect.stringContaining('shell:banned') });
    expect(
      await answerer.respond(request.interactionId, { approved: true, editedParameters: { command: 'ls -la' } }),
    ).toMatchObject({ status: 'accepted', continuation: { status: 'scheduled' } });
  });
});

describe('who answered first (issue 28, F53)', () => {
  it('tells a second person who gives the same answer that another person answered first', async () => {
    const { answerer, request } = await waitingCall(
      agentWorkflow('refund'),
      proposing('refund', { order: 'A', cents: 1 }),
    );
    const first = await answerer.respond(request.interactionId, { approved: true }, { responder: 'web:ada' });
    expect(first).toMatchObject({ status: 'accepted' });
    expect(await answerer.respond(request.interactionId, { approved: true }, { responder: 'web:bob' })).toEqual({
      status: 'already_answered',
      threadId: request.threadId,
    });
    // The same person sending the same answer again is a retry of their call.
    expect(await answerer.respond(request.interactionId, { approved: true }, { responder: 'web:ada' })).toMatchObject({
      status: 'accepted',
      repeated: true,
    });
  });

  it('says a repeated answer found the thread finished, not that another process applies it', async () => {
    const { runner, request } = await waitingCall(
      agentWorkflow('refund'),
      proposing('refund', { order: 'A', cents: 1 }),
    );
    const answered = await runner.respond(request.interactionId, { approved: true }, { responder: 'web:ada' });
    if (answered.status !== 'accepted' || answered.thread === undefined) throw new Error('not continued here');
    expect(await answered.thread.done()).toMatchObject({ status: 'completed' });
    expect(await runner.respond(request.interactionId, { approved: true }, { responder: 'web:ada' })).toMatchObject({
      status: 'accepted',
      repeated: true,
      continuation: { status: 'finished', threadStatus: 'completed' },
    });
  });
});
