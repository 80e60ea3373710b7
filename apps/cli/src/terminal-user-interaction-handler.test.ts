import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ToolApprovalDetails, UserInteractionContext, UserInteractionRequest } from '@interlock/sdk-types';
import {
  TerminalUserInteractionHandler,
  type TerminalUserInteractionHandlerOptions,
} from './terminal-user-interaction-handler.js';
import { until } from '@interlock/core/testing';

function requestOf(overrides: Partial<UserInteractionRequest> = {}): UserInteractionRequest {
  return {
    interactionId: 'interaction-1',
    threadId: 'thread-1',
    workflowId: 'plan-approval',
    nodeId: 'ask',
    operationType: 'UPDATE_VARIABLES',
    prompt: 'Go ahead with this plan?\n1. Read\n2. Write',
    input: { kind: 'choice', options: ['yes', 'no'] },
    timeout: 0,
    deadline: null,
    metadata: {},
    session: { channel: 'cli' },
    requestedAt: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

function contextOf(signal = new AbortController().signal): UserInteractionContext {
  return {
    threadId: 'thread-1',
    workflowId: 'plan-approval',
    nodeId: 'ask',
    timeout: 0,
    signal,
    conversation: [],
    events: { subscribe: () => ({ unsubscribe: () => undefined }) },
    getVariable: () => undefined,
    getVariables: () => ({}),
    setVariable: () => undefined,
  };
}

/** A handler reading piped lines (no terminal), with what it writes captured. */
function pipedHandler(lines: string | undefined, options: Partial<TerminalUserInteractionHandlerOptions> = {}) {
  const input = new PassThrough();
  if (lines !== undefined) input.end(lines);
  const output = new PassThrough();
  const errorOutput = new PassThrough();
  const written = { output: '', errorOutput: '' };
  output.on('data', (chunk: Buffer) => (written.output += chunk.toString()));
  errorOutput.on('data', (chunk: Buffer) => (written.errorOutput += chunk.toString()));
  const handler = new TerminalUserInteractionHandler({ input, output, errorOutput, interactive: false, ...options });
  return { handler, input, written };
}

describe('TerminalUserInteractionHandler without a terminal', () => {
  it('answers successive questions with successive lines and echoes each question and answer', async () => {
    const { handler, written } = pipedHandler('no\nyes\n');
    expect(await handler.handle(requestOf(), contextOf())).toEqual({
      outcome: 'responded',
      input: 'no',
      responder: 'terminal',
    });
    expect(await handler.handle(requestOf(), contextOf())).toEqual({
      outcome: 'responded',
      input: 'yes',
      responder: 'terminal',
    });
    handler.close();
    expect(written.output).toContain('? Go ahead with this plan?\n  1. Read\n  2. Write\n');
    expect(written.output).toContain('> no\n');
    expect(written.output).toContain('> yes\n');
  });

  it('defers, never approves, when input runs out, and says how to answer', async () => {
    const { handler, written } = pipedHandler('');
    expect(await handler.handle(requestOf(), contextOf())).toEqual({ outcome: 'deferred' });
    handler.close();
    expect(written.errorOutput).toContain('no answer for the question at node "ask"');
    expect(written.errorOutput).toContain("printf 'yes\\n' | interlock run");
  });

  it('reports a line that is not an answer and reads the next one', async () => {
    const { handler, written } = pipedHandler('maybe\n2\n');
    expect(await handler.handle(requestOf(), contextOf())).toMatchObject({ outcome: 'responded', input: 'no' });
    handler.close();
    expect(written.errorOutput).toContain('"maybe" is not an answer');
  });

  it('defers when the engine stops waiting before a line arrives', async () => {
    const { handler } = pipedHandler(undefined);
    const controller = new AbortController();
    const answer = handler.handle(requestOf(), contextOf(controller.signal));
    controller.abort();
    expect(await answer).toEqual({ outcome: 'deferred' });
    handler.close();
  });

  it('shows how long the person has to answer', async () => {
    const { handler, written } = pipedHandler('yes\n');
    await handler.handle(
      requestOf({ timeout: 30_000, deadline: new Date(Date.now() + 30_000).toISOString() }),
      contextOf(),
    );
    handler.close();
    expect(written.output).toContain('answer within 30 s');
  });

  it("does not ask a question whose deadline has passed, and leaves it to the engine's timeout", async () => {
    const { handler, written } = pipedHandler('yes\n');
    const engine = new AbortController();
    const result = handler.handle(
      requestOf({ timeout: 30_000, deadline: '2025-01-01T00:00:30.000Z' }),
      contextOf(engine.signal),
    );
    // The handler had its turn (it would have shown the question by now), then the engine times it out.
    await new Promise((resolve) => setImmediate(resolve));
    engine.abort('timeout');
    expect(await result).toEqual({ outcome: 'deferred' });
    handler.close();
    expect(written.output).not.toContain('answer within 30 s');
  });
});

/** A TOOL_APPROVAL request for one call, as the engine sends it. */
function approvalOf(interactionId: string, details: Partial<ToolApprovalDetails> = {}): UserInteractionRequest {
  const { input: _choice, ...withoutInput } = requestOf();
  const toolApproval: ToolApprovalDetails = {
    toolCallId: `call-${interactionId}`,
    toolName: 'bash',
    toolDescription: 'Run a bash command in the workspace directory.',
    toolParameters: { command: 'ls -la' },
    category: 'command',
    riskLevel: 'HIGH',
    rule: 'ask:risk:HIGH',
    stage: 'execution',
    rememberable: false,
    ...details,
  };
  return {
    ...withoutInput,
    interactionId,
    nodeId: 'agent',
    operationType: 'TOOL_APPROVAL',
    prompt: `Allow ${toolApproval.toolName} to run with these arguments?`,
    toolApproval,
  };
}

const writeNotes: Partial<ToolApprovalDetails> = {
  toolName: 'write_file',
  toolDescription: 'Create or overwrite a text file of the workspace.',
  toolParameters: { path: 'NOTES.md', content: 'hi' },
  category: 'write',
  riskLevel: 'MEDIUM',
  rule: 'ask:risk:MEDIUM',
  rememberable: true,
};

describe('TerminalUserInteractionHandler answering tool approvals from a pipe', () => {
  it('shows the call in full and answers with an approval decision', async () => {
    const { handler, written } = pipedHandler('y\n');
    expect(await handler.handle(approvalOf('i-1'), contextOf())).toEqual({
      outcome: 'responded',
      input: { approved: true },
      responder: 'terminal',
    });
    handler.close();
    expect(written.output).toContain('? Allow bash to run with these arguments?\n  Tool call: bash\n');
    expect(written.output).toContain('category command · risk HIGH · asked by rule ask:risk:HIGH');
    expect(written.output).toContain('"command": "ls -la"');
    expect(written.output).toContain('answer: y | n[: reason] | edit {json} | i: instruction\n');
    expect(written.output).toContain('> y\n  → approved\n');
  });

  it('lists a batch of calls first, then reads one line per call, in order', async () => {
    const { handler, written } = pipedHandler('y\nn: not today\ni: keep it short\n');
    const answers = await Promise.all([
      handler.handle(approvalOf('i-1', writeNotes), contextOf()),
      handler.handle(approvalOf('i-2'), contextOf()),
      handler.handle(approvalOf('i-3', { toolParameters: { command: 'git status' } }), contextOf()),
    ]);
    handler.close();
    expect(answers.map((answer) => (answer.outcome === 'responded' ? answer.input : answer))).toEqual([
      { approved: true },
      { approved: false, denyReason: 'not today' },
      { approved: true, userInstruction: 'keep it short' },
    ]);
    const batch = written.output.indexOf(
      '3 tool calls wait for you:\n  1. write_file(NOTES.md) · write · risk MEDIUM\n  2. bash(ls -la)',
    );
    expect(batch).toBeGreaterThanOrEqual(0);
    expect(written.output.indexOf('Tool call (1 of 3): write_file')).toBeGreaterThan(batch);
    expect(written.output.indexOf('Tool call (2 of 3): bash')).toBeGreaterThan(written.output.indexOf('> y'));
    expect(written.output).toContain('> n: not today\n  → rejected: not today\n');
    expect(written.output).toContain('→ approved, with an instruction for the model: keep it short');
  });

  it('asks about one call at a time: a second question waits until the first is answered', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const handler = new TerminalUserInteractionHandler({
      input,
      output,
      errorOutput: new PassThrough(),
      interactive: false,
    });
    const first = handler.handle(approvalOf('i-1'), contextOf());
    await until(
      'the first question to be shown',
      () => text,
      (shown) => shown.length > 0,
    );
    const second = handler.handle(approvalOf('i-2', writeNotes), contextOf());
    await new Promise((resolve) => setImmediate(resolve));
    expect(text).not.toContain('write_file');
    input.write('n\n');
    await first;
    input.end('y\n');
    expect(await second).toMatchObject({ input: { approved: true } });
    handler.close();
  });

  it('reports a line that is not an answer, or an edit the engine refuses, and reads the next line', async () => {
    const checked: unknown[] = [];
    const { handler, written } = pipedHandler('maybe\nedit {"command": 1}\nedit {"command": "ls"}\n', {
      checkResponse: async (_id, response) => {
        checked.push(response);
        return response.editedParameters?.['command'] === 1
          ? { ok: false, message: 'command: expected string' }
          : { ok: true };
      },
    });
    expect(await handler.handle(approvalOf('i-1'), contextOf())).toMatchObject({
      input: { approved: true, editedParameters: { command: 'ls' } },
    });
    handler.close();
    expect(written.errorOutput).toContain('"maybe" is not an answer: expected y | n[: reason]');
    expect(written.errorOutput).toContain(
      '"edit {\\"command\\": 1}" is not an answer: command: expected string. Reading the next line.',
    );
    expect(checked).toHaveLength(2);
    expect(written.output).toContain('→ approved with edited arguments {"command":"ls"}');
  });

  it('defers, never approves, when input runs out, and says once how to answer', async () => {
    const { handler, written } = pipedHandler('', { commandLine: 'interlock demo coding-agent' });
    const answers = await Promise.all([
      handler.handle(approvalOf('i-1'), contextOf()),
      handler.handle(approvalOf('i-2', writeNotes), contextOf()),
    ]);
    handler.close();
    expect(answers).toEqual([{ outcome: 'deferred' }, { outcome: 'deferred' }]);
    expect(written.errorOutput).toContain(
      'no answer for the tool call bash(ls -la): standard input has no more lines; it stays pending.',
    );
    expect(written.errorOutput).toContain('no answer for the tool call write_file(NOTES.md)');
    expect(written.errorOutput.split("printf 'y\\nn: not now\\n' | interlock demo coding-agent")).toHaveLength(2);
  });

  it('shows invisible characters in the arguments and warns about them', async () => {
    const { handler, written } = pipedHandler('n\n');
    await handler.handle(approvalOf('i-1', { toolParameters: { command: 'echo hi\u202E #' } }), contextOf());
    handler.close();
    expect(written.output).toContain('"command": "echo hi⟨U+202E⟩ #"');
    expect(written.output).toContain('⚠ the arguments contain invisible or bidirectional characters');
  });
});
