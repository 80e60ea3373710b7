import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { ThreadOutcome } from '@interlock/core';
import type { InterlockEvent } from '@interlock/sdk-types';
import { ReadableEventPrinter } from './event-printer.js';
import { JsonEventPrinter } from './json-event-printer.js';
import { createTerminalStyle } from './terminal-style.js';

const base = { threadId: 'thread-1', workflowId: 'plan-approval', timestamp: '2025-01-01T00:00:00.000Z' };

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** A readable printer into a captured stream: in colour, and animated, only when asked. */
function readable({ colour = false, animate = false } = {}) {
  const output = capture();
  return { output, printer: new ReadableEventPrinter(output.stream, createTerminalStyle(colour), animate) };
}

/** The model's reply "All done.", not streamed. */
const allDone: InterlockEvent = {
  ...base,
  type: 'LLM_CALL_COMPLETED',
  nodeId: 'draft',
  model: 'default',
  round: 1,
  text: 'All done.',
  toolCallCount: 0,
};

const streamedReply: InterlockEvent[] = [
  { ...base, type: 'NODE_STARTED', nodeId: 'draft', nodeType: 'LLM' },
  { ...base, type: 'LLM_TEXT_DELTA', nodeId: 'draft', delta: 'Plan:\n1. ' },
  { ...base, type: 'LLM_TEXT_DELTA', nodeId: 'draft', delta: 'read' },
  {
    ...base,
    type: 'LLM_CALL_COMPLETED',
    nodeId: 'draft',
    model: 'default',
    round: 1,
    text: 'Plan:\n1. read',
    toolCallCount: 0,
  },
  { ...base, type: 'NODE_STARTED', nodeId: 'ask', nodeType: 'USER_INTERACTION' },
];

describe('ReadableEventPrinter', () => {
  it('streams model text inline, indented, and ends the line when the call completes', () => {
    const { output, printer } = readable();
    for (const event of streamedReply) printer.printEvent(event);
    expect(output.text()).toBe('› draft (LLM)\n  Plan:\n  1. read\n› ask (USER_INTERACTION)\n');
  });

  it('in a terminal, spins while the model works and clears the spinner before its first text', () => {
    vi.useFakeTimers();
    try {
      const { output, printer } = readable({ animate: true });
      printer.printEvent({ ...base, type: 'LLM_CALL_STARTED', nodeId: 'draft', model: 'default', round: 1 });
      vi.advanceTimersByTime(240);
      const spinning = output.text();
      expect(spinning).toContain('\r⠋ model "default" is working…');
      expect(spinning).toContain('\r⠹ model "default" is working…');
      printer.printEvent({ ...base, type: 'LLM_TEXT_DELTA', nodeId: 'draft', delta: 'Plan' });
      expect(output.text().slice(spinning.length)).toBe('\r\u001B[2K  Plan');
      vi.advanceTimersByTime(1000);
      expect(output.text().endsWith('  Plan')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('draws no spinner when the output is not a terminal', () => {
    const { output, printer } = readable();
    printer.printEvent({ ...base, type: 'LLM_CALL_STARTED', nodeId: 'draft', model: 'default', round: 1 });
    printer.printEvent(allDone);
    expect(output.text()).toBe('  All done.\n');
  });

  it('prints the whole reply of a model that did not stream', () => {
    const { output, printer } = readable();
    printer.printEvent(allDone);
    expect(output.text()).toBe('  All done.\n');
  });

  it('says why a question failed', () => {
    const { output, printer } = readable();
    printer.printEvent({
      ...base,
      type: 'USER_INTERACTION_FAILED',
      interactionId: 'i-1',
      nodeId: 'ask',
      operationType: 'UPDATE_VARIABLES',
      reason: 'timeout',
      message: 'nobody answered before the deadline',
    });
    expect(output.text()).toContain('question from node "ask" failed (timeout): nobody answered before the deadline');
  });

  it('summarises a completed run with its steps and output, and a failure with its code and node', () => {
    const { output, printer } = readable();
    printer.printOutcome(
      { status: 'completed', threadId: 'thread-1', output: 'the plan', variables: {} },
      { steps: 6 },
    );
    printer.printOutcome(
      { status: 'failed', threadId: 'thread-2', error: { code: 'MODEL_FAILED', message: 'no reply', nodeId: 'draft' } },
      {},
    );
    expect(output.text()).toBe(
      '✔ completed · 6 steps · thread thread-1\nOutput:\nthe plan\n✘ failed · thread thread-2\nMODEL_FAILED at node "draft": no reply\n',
    );
  });

  it('colours only when asked to', () => {
    const plain = capture();
    const coloured = capture();
    const outcome: ThreadOutcome = { status: 'waiting', threadId: 'thread-1', pendingInteractionIds: ['i-1'] };
    new ReadableEventPrinter(plain.stream, createTerminalStyle(false)).printOutcome(outcome, {});
    new ReadableEventPrinter(coloured.stream, createTerminalStyle(true)).printOutcome(outcome, {});
    expect(plain.text()).not.toContain('\u001B[');
    expect(coloured.text()).toContain('\u001B[33m');
  });
});

describe('ReadableEventPrinter on tool calls', () => {
  const call = { ...base, nodeId: 'agent', toolCallId: 'call-1', toolName: 'bash', arguments: { command: 'rm -rf /' } };

  it('prints one line per tool-call event, naming the call, with the decision and its rule', () => {
    const { output, printer } = readable();
    const read = { ...call, toolCallId: 'call-2', toolName: 'read_file', arguments: { path: 'README.md' } };
    printer.printEvent({ ...call, type: 'TOOL_CALL_REQUESTED' });
    printer.printEvent({ ...call, type: 'TOOL_CALL_DECIDED', decision: 'deny', rule: 'shell:banned:rm-root' });
    printer.printEvent({
      ...call,
      type: 'TOOL_CALL_FAILED',
      status: 'EXECUTION_REJECTED',
      message: '[EXECUTION_REJECTED] This call was not run: denied by policy.',
    });
    printer.printEvent({ ...read, type: 'TOOL_CALL_DECIDED', decision: 'allow', rule: 'category:read' });
    printer.printEvent({ ...read, type: 'TOOL_CALL_STARTED' });
    printer.printEvent({ ...read, type: 'TOOL_CALL_COMPLETED', status: 'SUCCESS', result: '# Demo\nproject' });
    printer.printEvent({ ...read, type: 'TOOL_CALL_DECIDED', decision: 'allow', rule: 'person' });
    expect(output.text()).toBe(
      [
        '⚙ bash(rm -rf /) proposed: {"command":"rm -rf /"}',
        '  bash(rm -rf /) → deny (rule shell:banned:rm-root)',
        '  bash(rm -rf /) ✘ EXECUTION_REJECTED: This call was not run: denied by policy.',
        '  read_file(README.md) → allow (rule category:read)',
        '  read_file(README.md) ▶ running',
        '  read_file(README.md) ✔ SUCCESS: # Demo ⏎ project',
        '  read_file(README.md) → allow (by a person)',
        '',
      ].join('\n'),
    );
  });

  it('colours a decision by its outcome', () => {
    const { output, printer } = readable({ colour: true });
    printer.printEvent({ ...call, type: 'TOOL_CALL_DECIDED', decision: 'deny', rule: 'shell:banned:rm-root' });
    printer.printEvent({ ...call, type: 'TOOL_CALL_DECIDED', decision: 'ask', rule: 'ask:risk:HIGH' });
    printer.printEvent({ ...call, type: 'TOOL_CALL_DECIDED', decision: 'allow', rule: 'mode:yolo' });
    const [deny, ask, allow] = output.text().split('\n');
    expect(deny).toContain('\u001B[31m→ deny');
    expect(ask).toContain('\u001B[33m→ ask');
    expect(allow).toContain('\u001B[32m→ allow');
  });

  it('names an approval by its call and shows the answer in words', () => {
    const { output, printer } = readable();
    const request = {
      interactionId: 'i-1',
      threadId: 'thread-1',
      workflowId: 'coding-agent',
      nodeId: 'agent',
      operationType: 'TOOL_APPROVAL' as const,
      prompt: 'Allow bash to run with these arguments?',
      timeout: 0,
      deadline: null,
      metadata: {},
      session: { channel: 'cli' },
      requestedAt: base.timestamp,
      toolApproval: {
        toolCallId: 'call-1',
        toolName: 'bash',
        toolDescription: 'Runs a command',
        toolParameters: { command: 'ls -la' },
        category: 'command' as const,
        riskLevel: 'HIGH' as const,
        rule: 'ask:risk:HIGH',
        stage: 'execution' as const,
        rememberable: false,
      },
    };
    const interaction = { ...base, interactionId: 'i-1', nodeId: 'agent', operationType: 'TOOL_APPROVAL' as const };
    printer.printEvent({ ...interaction, type: 'USER_INTERACTION_REQUESTED', request });
    printer.printEvent({
      ...interaction,
      type: 'USER_INTERACTION_RESPONDED',
      input: { approved: false, denyReason: 'not today' },
      responder: 'terminal',
    });
    printer.printEvent({ ...interaction, type: 'USER_INTERACTION_PROCESSED' });
    expect(output.text()).toBe(
      '◆ bash(ls -la): it needs your approval\n✓ bash(ls -la) answered by terminal: rejected: not today\n',
    );
  });

  it('ends with how many tool-call decisions the audit trail holds', () => {
    const { output, printer } = readable();
    printer.printOutcome(
      { status: 'completed', threadId: 'thread-1', output: null, variables: {} },
      { audit: { entries: 4, allowed: 2, denied: 2, chainValid: true } },
    );
    expect(output.text()).toBe(
      '✔ completed · thread thread-1\nAudit: 4 tool-call decisions (2 allowed, 2 denied) · hash chain intact\n',
    );
  });
});

describe('JsonEventPrinter', () => {
  it('prints one parseable line per event and ends with the outcome and its exit code', () => {
    const output = capture();
    const printer = new JsonEventPrinter(output.stream);
    for (const event of streamedReply) printer.printEvent(event);
    printer.printOutcome(
      { status: 'waiting', threadId: 'thread-1', pendingInteractionIds: ['i-1'] },
      { steps: 2, interrupted: true },
    );
    const lines = output
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line['type'])).toEqual([...streamedReply.map((event) => event.type), 'OUTCOME']);
    expect(lines.at(-1)).toMatchObject({ outcome: { status: 'waiting' }, steps: 2, interrupted: true, exitCode: 130 });
  });
});
