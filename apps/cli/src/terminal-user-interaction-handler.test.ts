import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { UserInteractionContext, UserInteractionRequest } from '@interlock/sdk-types';
import { TerminalUserInteractionHandler } from './terminal-user-interaction-handler.js';

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
function pipedHandler(lines: string | undefined) {
  const input = new PassThrough();
  if (lines !== undefined) input.end(lines);
  const output = new PassThrough();
  const errorOutput = new PassThrough();
  const written = { output: '', errorOutput: '' };
  output.on('data', (chunk: Buffer) => (written.output += chunk.toString()));
  errorOutput.on('data', (chunk: Buffer) => (written.errorOutput += chunk.toString()));
  const handler = new TerminalUserInteractionHandler({ input, output, errorOutput, interactive: false });
  return { handler, input, written };
}

describe('TerminalUserInteractionHandler without a terminal', () => {
  it('answers successive questions with successive lines and echoes each question and answer', async () => {
    const { handler, written } = pipedHandler('no\nyes\n');
    expect(await handler.handle(requestOf(), contextOf())).toEqual({ outcome: 'responded', input: 'no', responder: 'terminal' });
    expect(await handler.handle(requestOf(), contextOf())).toEqual({ outcome: 'responded', input: 'yes', responder: 'terminal' });
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

  it('asks yes or no for a tool call and answers with an approval decision', async () => {
    const { handler, written } = pipedHandler('y\n');
    const { input: _choice, ...withoutInput } = requestOf();
    const request: UserInteractionRequest = {
      ...withoutInput,
      operationType: 'TOOL_APPROVAL',
      prompt: 'The model wants to run a command.',
      toolApproval: {
        toolCallId: 'call-1',
        toolName: 'bash',
        toolDescription: 'Runs a shell command',
        toolParameters: { command: 'rm -rf build' },
        category: 'command',
        riskLevel: 'HIGH',
        rule: 'shell:high-risk',
        stage: 'execution',
        rememberable: false,
      },
    };
    expect(await handler.handle(request, contextOf())).toEqual({ outcome: 'responded', input: { approved: true }, responder: 'terminal' });
    handler.close();
    expect(written.output).toContain('Allow tool "bash"');
    expect(written.output).toContain('rm -rf build');
  });

  it('shows how long the person has to answer', async () => {
    const { handler, written } = pipedHandler('yes\n');
    await handler.handle(requestOf({ timeout: 30_000, deadline: '2025-01-01T00:00:30.000Z' }), contextOf());
    handler.close();
    expect(written.output).toContain('answer within 30 s');
  });
});
