import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Clock } from '../engine/clock.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import {
  resolveApprovalOptions,
  type ApprovalOptions,
  type ToolApproveResult,
  type ToolUse,
} from '../policy/approval-options.js';
import { ApprovalPolicy } from '../policy/approval-policy.js';
import { MessageBus, type ToolApprovalBusRequest } from '../policy/message-bus.js';
import {
  askAutomatically,
  automaticApprover,
  verdictOf,
  withTimeout,
  type AutomaticApprover,
} from './automatic-approvers.js';
import { defineTool } from './define-tool.js';
import { ToolRegistry } from './tool-registry.js';
import { safeShellClassifier } from '../testing/index.js';

afterEach(() => {
  vi.useRealTimers();
});

const note = defineTool({
  name: 'note',
  description: 'Writes a note',
  category: 'write',
  riskLevel: 'MEDIUM',
  parameters: z.object({ text: z.string(), copies: z.number().int().default(1) }),
  execute: async ({ text }) => `noted ${text}`,
});

const toolUse: ToolUse = {
  toolName: 'note',
  arguments: { text: 'hello', copies: 1 },
  category: 'write',
  riskLevel: 'MEDIUM',
  rule: 'ask:risk:MEDIUM',
  threadId: 'thread-1',
  sessionId: 'session-1',
  channel: 'cli',
};

/** The clock the engine would inject, read from the (possibly fake) system time. */
const systemClock: Clock = { now: () => Date.now() };
const safeShell = safeShellClassifier();

function policyWith(options: ApprovalOptions): ApprovalPolicy {
  return new ApprovalPolicy(
    new ToolRegistry([note]),
    resolveApprovalOptions(options),
    safeShell,
    new InMemoryCheckpointStore(),
    systemClock,
  );
}

const approverOf = (ask: AutomaticApprover['ask']): AutomaticApprover => ({ name: 'callback:onToolApprove', ask });
const allowAll = () => false;

describe('automaticApprover (who answers for a person)', () => {
  it('is onToolApprove when it is set, even with a bus handler registered (F26)', async () => {
    const bus = new MessageBus();
    bus.registerHandler('toolApproval', () => false);
    const approver = automaticApprover(policyWith({ onToolApprove: () => true }), bus);
    expect(approver?.name).toBe('callback:onToolApprove');
    expect(await approver?.ask(toolUse)).toBe(true);
  });

  it("is the bus's toolApproval handler otherwise, which gets the call with its category and session", async () => {
    const bus = new MessageBus();
    const requests: ToolApprovalBusRequest[] = [];
    bus.registerHandler('toolApproval', (request) => {
      requests.push(request);
      return { approved: false, denyReason: 'not today' };
    });
    const approver = automaticApprover(policyWith({}), bus);
    expect(approver?.name).toBe('bus:toolApproval');
    expect(await approver?.ask(toolUse)).toEqual({ approved: false, denyReason: 'not today' });
    expect(requests).toEqual([{ toolUse, category: 'write', sessionId: 'session-1' }]);
  });

  it('is nobody when neither is there: a person is asked', () => {
    expect(automaticApprover(policyWith({}), new MessageBus())).toBeUndefined();
  });
});

describe('verdictOf (reading an approver answer)', () => {
  const read = (answer: unknown, denies: (edited: Record<string, unknown>) => boolean = allowAll) =>
    verdictOf('callback:onToolApprove', answer, toolUse.arguments, note, denies);

  it('true approves the arguments as proposed (F26)', () => {
    expect(read(true)).toEqual({ approved: true, finalArguments: { text: 'hello', copies: 1 } });
  });

  it('false denies', () => {
    expect(read(false)).toEqual({ approved: false, reason: 'callback:onToolApprove said no' });
  });

  it('a denial gives its denyReason, or says no', () => {
    expect(read({ approved: false, denyReason: 'too long' })).toEqual({ approved: false, reason: 'too long' });
    expect(read({ approved: false })).toEqual({ approved: false, reason: 'callback:onToolApprove said no' });
  });

  it('an approval without params runs the proposed arguments', () => {
    expect(read({ approved: true })).toEqual({ approved: true, finalArguments: { text: 'hello', copies: 1 } });
  });

  it("an approval with params runs the params as the tool's schema reads them (F26)", () => {
    expect(read({ approved: true, params: { text: 'edited' } })).toEqual({
      approved: true,
      finalArguments: { text: 'edited', copies: 1 },
    });
  });

  it.each([
    ['of the wrong type', { text: 42 }, /returned params that are invalid or denied \(text: .+\)/],
    ['with a property the tool does not have', { text: 'x', force: true }, /\(force: the tool has no such property\)/],
    ['that are not plain JSON', { text: 'x', copies: Number.POSITIVE_INFINITY }, /\(they are not plain JSON: Infinity/],
  ])('params %s deny, saying what is wrong (F28)', (_case, params, reason) => {
    expect(read({ approved: true, params })).toEqual({ approved: false, reason: expect.stringMatching(reason) });
  });

  it('params the rules deny deny the call, and the rules see the parsed params', () => {
    const seen: Record<string, unknown>[] = [];
    const verdict = read({ approved: true, params: { text: 'rm -rf' } }, (edited) => {
      seen.push(edited);
      return true;
    });
    expect(verdict).toEqual({
      approved: false,
      reason: 'callback:onToolApprove returned params that are invalid or denied',
    });
    expect(seen).toEqual([{ text: 'rm -rf', copies: 1 }]);
  });

  it.each([
    ['a string', 'yes'],
    ['a number', 1],
    ['null', null],
    ['undefined', undefined],
  ])('%s is neither a boolean nor a decision: denied (F28)', (_case, answer) => {
    expect(read(answer)).toEqual({
      approved: false,
      reason: 'callback:onToolApprove returned neither a boolean nor a decision',
    });
  });

  it('a decision whose approved is not true denies (fails closed, F28)', () => {
    expect(read({ approved: 'yes' })).toMatchObject({ approved: false });
    expect(read({})).toMatchObject({ approved: false });
  });
});

describe('withTimeout (on the injected clock)', () => {
  it('rejects once the clock passes the timeout, not before', async () => {
    vi.useFakeTimers();
    let settled = false;
    const late = withTimeout(1_000, systemClock, 'callback:onToolApprove', new Promise<boolean>(() => undefined));
    const outcome = late.then(
      () => 'answered',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    void outcome.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toBe('callback:onToolApprove did not answer within 1000 ms');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves with the answer and leaves no timer behind when the answer wins (F20)', async () => {
    vi.useFakeTimers();
    let answer: (value: boolean) => void = () => undefined;
    const pending = withTimeout(
      1_000,
      systemClock,
      'callback:onToolApprove',
      new Promise<boolean>((resolve) => (answer = resolve)),
    );
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(500);
    answer(true);
    expect(await pending).toBe(true);
    // The timer is cleared in a `finally` that runs a microtask after the caller resumes; let it run (without reaching the deadline).
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes a plain (not promised) answer through and leaves no timer behind', async () => {
    vi.useFakeTimers();
    expect(await withTimeout(1_000, systemClock, 'callback:onToolApprove', false)).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the answer's own error, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    await expect(
      withTimeout(1_000, systemClock, 'callback:onToolApprove', Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits forever, with no timer, when the timeout is 0', async () => {
    vi.useFakeTimers();
    let settled = false;
    void withTimeout(0, systemClock, 'callback:onToolApprove', new Promise<boolean>(() => undefined)).then(
      () => (settled = true),
      () => (settled = true),
    );
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(86_400_000);
    expect(settled).toBe(false);
  });

  it('times out by the clock it is given: a clock that stands still never runs out', async () => {
    vi.useFakeTimers();
    const frozen: Clock = { now: () => 0 };
    let settled = false;
    void withTimeout(1_000, frozen, 'callback:onToolApprove', new Promise<boolean>(() => undefined)).catch(
      () => (settled = true),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    expect(settled).toBe(false);
    vi.clearAllTimers();
  });
});

describe('askAutomatically (F26, F28)', () => {
  const options = { timeoutMs: 1_000, clock: systemClock, denies: allowAll };

  it('approves with what the approver returned', async () => {
    const verdict = await askAutomatically(
      approverOf(() => ({ approved: true, params: { text: 'edited' } })),
      toolUse,
      note,
      options,
    );
    expect(verdict).toEqual({ approved: true, finalArguments: { text: 'edited', copies: 1 } });
  });

  it('gives the approver the call as the rules saw it', async () => {
    const seen: ToolUse[] = [];
    const recording = approverOf((asked) => {
      seen.push(asked);
      return true;
    });
    await askAutomatically(recording, toolUse, note, options);
    expect(seen).toEqual([toolUse]);
  });

  it('an approver that throws denies with its message', async () => {
    const throwing = approverOf(() => {
      throw new Error('the policy service is down');
    });
    expect(await askAutomatically(throwing, toolUse, note, options)).toEqual({
      approved: false,
      reason: 'callback:onToolApprove failed: the policy service is down',
    });
  });

  it('an approver that rejects denies with its message', async () => {
    const rejecting = approverOf(() => Promise.reject(new Error('401 from the policy service')));
    expect(await askAutomatically(rejecting, toolUse, note, options)).toEqual({
      approved: false,
      reason: 'callback:onToolApprove failed: 401 from the policy service',
    });
  });

  it('an approver that does not answer in time denies, and its late answer changes nothing', async () => {
    vi.useFakeTimers();
    let answer: (value: ToolApproveResult) => void = () => undefined;
    const verdict = askAutomatically(
      approverOf(() => new Promise<ToolApproveResult>((resolve) => (answer = resolve))),
      toolUse,
      note,
      options,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    answer(true);
    expect(await verdict).toEqual({
      approved: false,
      reason: 'callback:onToolApprove failed: callback:onToolApprove did not answer within 1000 ms',
    });
  });
});
