import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InterlockEvent, UserInteractionHandlerResult, UserInteractionRequest } from '@interlock/sdk-types';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { builtinTools, createInterlock, type Interlock, type ShellClassifierPort } from '../index.js';
import { scriptedHandler, scriptedModel } from '../testing/index.js';

let interlock: Interlock | undefined;
let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'interlock-llm-'));
  await writeFile(join(workspace, 'README.md'), '# Project');
});
afterEach(async () => {
  await interlock?.close();
  interlock = undefined;
});

const shell: ShellClassifierPort = {
  classify: (command) =>
    command === 'rm -rf /'
      ? { verdict: 'banned', rule: 'shell:banned:rm-root', reasons: ['deletes /'] }
      : { verdict: 'safe', rule: 'shell:safe', reasons: [] },
};

const agentWorkflow = (tools: string[]) =>
  linearWorkflow(
    [{ id: 'agent', type: 'LLM', config: { prompt: 'Tidy the project', tools, outputVariable: 'output' } }],
    { id: 'agent-flow' },
  );

function answerBy(answers: Record<string, UserInteractionHandlerResult>, seen: UserInteractionRequest[] = []) {
  return scriptedHandler(
    Array.from({ length: 10 }, () => (request: UserInteractionRequest) => {
      seen.push(request);
      return answers[request.toolApproval?.toolName ?? ''] ?? { outcome: 'deferred' };
    }),
  );
}

describe('LLMExecutionCoordinator with tools', () => {
  it('decides three calls of one turn: one allowed, one approved with an edit and an instruction, one rejected; the next turn sees exactly that (F15, F19, F44)', async () => {
    const model = scriptedModel([
      {
        text: 'Let me look around.',
        toolCalls: [
          { id: 'call-read', name: 'read_file', arguments: { path: 'README.md' } },
          { id: 'call-write', name: 'write_file', arguments: { path: 'notes.txt', content: 'draft' } },
          { id: 'call-bash', name: 'bash', arguments: { command: 'ls -la' } },
        ],
      },
      'All done.',
    ]);
    const seen: UserInteractionRequest[] = [];
    let pendingWhenAsked = 0;
    const handler = answerBy(
      {
        write_file: {
          outcome: 'responded',
          input: {
            approved: true,
            editedParameters: { path: 'notes.txt', content: 'edited' },
            userInstruction: 'Also add a title.',
          },
          responder: 'ada',
        },
        bash: { outcome: 'responded', input: { approved: false, denyReason: 'no shell today' } },
      },
      seen,
    );
    interlock = await createInterlock({
      models: { default: model },
      tools: builtinTools,
      workspaceRoot: workspace,
      shellClassifier: shell,
      handlers: {
        cli: {
          handle: async (request, context) => {
            pendingWhenAsked = Math.max(pendingWhenAsked, (await interlock!.pending()).length);
            return handler.handle(request, context);
          },
        },
      },
    });
    const events: InterlockEvent[] = [];
    interlock.events$.subscribe((event) => events.push(event));
    const workflow = interlock.registerWorkflow(agentWorkflow(['read_file', 'write_file', 'bash']));

    const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();

    expect(outcome).toMatchObject({ status: 'completed', output: 'All done.' });
    expect(pendingWhenAsked).toBe(2); // both questions were pending at once
    expect(seen.map((request) => request.toolApproval?.toolName).sort()).toEqual(['bash', 'write_file']);
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('edited');

    const second = model.requests[1]!.messages;
    expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool', 'user']);
    expect(second[1]).toMatchObject({
      role: 'assistant',
      content: 'Let me look around.',
      toolCalls: [
        { id: 'call-read', name: 'read_file', arguments: { path: 'README.md' } },
        { id: 'call-write', name: 'write_file', arguments: { path: 'notes.txt', content: 'edited' } },
        { id: 'call-bash', name: 'bash', arguments: { command: 'ls -la', timeoutMs: 60_000 } },
      ],
    });
    expect(second.slice(2, 5).map((message) => message.toolCallId)).toEqual(['call-read', 'call-write', 'call-bash']);
    expect(second[2]!.content).toBe('[SUCCESS] # Project');
    expect(second[3]!.content).toContain('[SUCCESS] wrote 6 characters to notes.txt');
    expect(second[4]!.content).toMatch(/^\[EXECUTION_REJECTED\] .*no shell today.*Do not retry it unchanged/);
    expect(second[5]).toMatchObject({ role: 'user', content: 'Also add a title.' });
    expect(model.requests[0]!.tools?.map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'bash']);

    const decided = events
      .filter((event) => event.type === 'TOOL_CALL_DECIDED')
      .map((event) => `${event.toolName}:${event.decision}:${event.rule}`);
    expect(decided).toEqual([
      'read_file:allow:category:read',
      'write_file:ask:ask:risk:MEDIUM',
      'bash:ask:ask:risk:HIGH',
      expect.stringMatching(/^(write_file:allow|bash:deny):person$/),
      expect.stringMatching(/^(write_file:allow|bash:deny):person$/),
    ]);
    const audit = await interlock.audit();
    expect(audit.map((entry) => `${entry.toolName}:${entry.outcome}:${entry.decidedBy}`)).toEqual(
      expect.arrayContaining(['read_file:allow:category:read', 'write_file:allow:person', 'bash:deny:person']),
    );
    expect(audit.find((entry) => entry.toolName === 'write_file')).toMatchObject({
      responder: 'ada',
      originalArguments: { path: 'notes.txt', content: 'draft' },
      editedArguments: { path: 'notes.txt', content: 'edited' },
    });
    expect(await interlock.verifyAudit()).toEqual({ valid: true, entries: 3 });
  });

  it('waits durably for approvals, answered one by one through respond(), and refuses an invalid edit (F21)', async () => {
    const model = scriptedModel([
      {
        text: '',
        toolCalls: [
          { id: 'a', name: 'write_file', arguments: { path: 'a.txt', content: 'A' } },
          { id: 'b', name: 'write_file', arguments: { path: 'b.txt', content: 'B' } },
        ],
      },
      'Finished.',
    ]);
    interlock = await createInterlock({
      models: { default: model },
      tools: builtinTools,
      workspaceRoot: workspace,
      shellClassifier: shell,
    });
    const workflow = interlock.registerWorkflow(agentWorkflow(['write_file']));
    const first = await (await interlock.start(workflow, { channel: 'inbox' })).done();
    expect(first).toMatchObject({ status: 'waiting', pendingInteractionIds: [expect.any(String), expect.any(String)] });
    const pending = await interlock.pending();
    expect(pending.map((request) => request.toolApproval?.toolCallId)).toEqual(['a', 'b']);

    await expect(
      interlock.respond(pending[0]!.interactionId, { approved: true, editedParameters: { path: 42 } }),
    ).rejects.toMatchObject({
      code: 'INTERACTION_INVALID_RESPONSE',
      message: expect.stringContaining('do not match the schema of write_file'),
    });
    // A path outside the workspace is refused when the approver answers, not when the tool runs (issue 13).
    await expect(
      interlock.respond(pending[0]!.interactionId, {
        approved: true,
        editedParameters: { path: '../escape.txt', content: 'x' },
      }),
    ).rejects.toMatchObject({
      code: 'INTERACTION_INVALID_RESPONSE',
      message: expect.stringContaining('leaves the workspace'),
    });
    await expect(
      interlock.respond(pending[0]!.interactionId, {
        approved: true,
        editedParameters: { path: 'inside.txt', content: 'x', extra: 1 },
      }),
    ).rejects.toMatchObject({
      code: 'INTERACTION_INVALID_RESPONSE',
      message: expect.stringContaining('extra: the tool has no such property'),
    });
    await expect(
      interlock.respond(pending[0]!.interactionId, {
        approved: true,
        editedParameters: { path: 'inside.txt', content: 'x' },
      }),
    ).resolves.toMatchObject({
      status: 'accepted',
    });
    const afterOne = await interlock.threads();
    await expect.poll(async () => (await interlock!.pending()).length).toBe(1);
    expect(afterOne).toHaveLength(1);

    const last = await interlock.respond(pending[1]!.interactionId, 'no');
    const outcome = last.status === 'accepted' ? await last.thread?.done() : undefined;
    expect(outcome).toMatchObject({ status: 'completed', output: 'Finished.' });
    const tools = model.requests[1]!.messages.filter((message) => message.role === 'tool').map(
      (message) => message.content,
    );
    expect(tools[0]).toMatch(/wrote 1 characters to inside\.txt/);
    expect(tools[1]).toMatch(/^\[EXECUTION_REJECTED\]/);
  });

  it('denies a banned command without asking, and an unknown tool is NOT_FOUND', async () => {
    const model = scriptedModel([
      {
        text: '',
        toolCalls: [
          { id: 'x', name: 'bash', arguments: { command: 'rm -rf /' } },
          { id: 'y', name: 'teleport', arguments: {} },
        ],
      },
      'ok',
    ]);
    const handler = scriptedHandler([]);
    interlock = await createInterlock({
      models: { default: model },
      tools: builtinTools,
      workspaceRoot: workspace,
      shellClassifier: shell,
      handlers: { cli: handler },
    });
    const workflow = interlock.registerWorkflow(agentWorkflow(['bash']));
    await (await interlock.start(workflow, { channel: 'cli' })).done();
    expect(handler.requests).toHaveLength(0);
    const tools = model.requests[1]!.messages.filter((message) => message.role === 'tool').map(
      (message) => message.content,
    );
    expect(tools[0]).toMatch(/^\[EXECUTION_REJECTED\] .*shell:banned:rm-root/);
    expect(tools[1]).toMatch(/^\[NOT_FOUND\] No tool named "teleport"/);
  });

  it('turns malformed arguments into a tool error the model can fix', async () => {
    const model = scriptedModel([
      { text: '', toolCalls: [{ id: 'x', name: 'read_file', arguments: {}, argumentsError: 'Unexpected token }' }] },
      'ok',
    ]);
    interlock = await createInterlock({
      models: { default: model },
      tools: builtinTools,
      workspaceRoot: workspace,
      shellClassifier: shell,
    });
    const workflow = interlock.registerWorkflow(agentWorkflow(['read_file']));
    await (await interlock.start(workflow)).done();
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(
      /^\[ERROR\] The arguments were not a usable JSON object/,
    );
  });

  it('result approval: a rejected result never reaches the model (F13)', async () => {
    const { defineTool } = await import('../index.js');
    const { z } = await import('zod');
    const secret = defineTool({
      name: 'secret',
      description: 'reads a secret',
      category: 'read',
      riskLevel: 'LOW',
      requireResultApproval: true,
      parameters: z.object({}),
      execute: async () => 'TOP-SECRET-VALUE',
    });
    const model = scriptedModel([{ text: '', toolCalls: [{ id: 's', name: 'secret', arguments: {} }] }, 'ok']);
    const seen: UserInteractionRequest[] = [];
    interlock = await createInterlock({
      models: { default: model },
      tools: [secret],
      shellClassifier: shell,
      handlers: {
        cli: answerBy({ secret: { outcome: 'responded', input: { approved: false, denyReason: 'private' } } }, seen),
      },
    });
    const workflow = interlock.registerWorkflow(agentWorkflow(['secret']));
    await (await interlock.start(workflow, { channel: 'cli' })).done();
    expect(seen[0]?.toolApproval).toMatchObject({ stage: 'result', result: 'TOP-SECRET-VALUE' });
    const everything = JSON.stringify(model.requests[1]!.messages);
    expect(everything).not.toContain('TOP-SECRET-VALUE');
    expect(model.requests[1]!.messages.at(-1)!.content).toMatch(/^\[RESULT_REJECTED\]/);
  });

  it('fails clearly when the model keeps calling tools past maxRounds', async () => {
    const model = scriptedModel(() => ({
      text: '',
      toolCalls: [{ id: `r${Math.random()}`, name: 'read_file', arguments: { path: 'README.md' } }],
    }));
    interlock = await createInterlock({
      models: { default: model },
      tools: builtinTools,
      workspaceRoot: workspace,
      shellClassifier: shell,
    });
    const workflow = interlock.registerWorkflow(
      linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['read_file'], maxRounds: 3 } }], {
        id: 'loop-flow',
      }),
    );
    const outcome = await (await interlock.start(workflow)).done();
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'LLM_MAX_ROUNDS_EXCEEDED' } });
    expect(model.requests).toHaveLength(3);
  });
});
