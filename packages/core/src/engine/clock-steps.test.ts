import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, steadyClock, type Interlock } from '../index.js';
import { scriptedHandler, scriptedModel } from '../testing/index.js';
import { safeShellClassifier } from '../testing/index.js';
import { isoTime } from './clock.js';

/* The wall clock steps back two hours mid-run (issue 11): deadlines and remembered approvals still end on time. */

const TWO_HOURS = 2 * 60 * 60 * 1000;
const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
  vi.useRealTimers();
});

/** A wall clock an operator can set back, and the engine's clock on top of it. */
function settableClock() {
  let shift = 0;
  return { clock: steadyClock(() => Date.now() - shift), stepBack: (ms: number) => (shift += ms) };
}

/** Time passes on vitest's fake clock (wall, monotonic and timers), not in real time. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('steadyClock', () => {
  it('never steps back: after a backward step it counts on from its last reading, and follows a forward step at once', () => {
    let wall = 1_000_000;
    let monotonic = 0;
    const clock = steadyClock(
      () => wall,
      () => monotonic,
    );
    expect(clock.now()).toBe(1_000_000);
    wall -= TWO_HOURS;
    monotonic += 5;
    expect(clock.now()).toBe(1_000_005);
    wall += 10;
    monotonic += 10;
    expect(clock.now()).toBe(1_000_015);
    wall += TWO_HOURS + 60_000;
    monotonic += 10;
    expect(clock.now()).toBe(wall);
  });
});

describe('a backward step of the wall clock (issue 11, F14, F30)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  });

  it('does not extend a deadline: the question times out on time, and a late answer is refused as expired', async () => {
    const { clock, stepBack } = settableClock();
    const interlock = await createInterlock({ clock });
    opened.push(interlock);
    const workflow = interlock.registerWorkflow(
      linearWorkflow([askNode('ask', { timeout: '1s' })], { id: 'deadline' }),
    );
    const waiting = await (await interlock.start(workflow, { channel: 'inbox' })).done();
    const [question] = await interlock.pending();
    stepBack(TWO_HOURS);
    await pass(1_300);
    expect(await interlock.respond(question!.interactionId, 'too late')).toEqual({
      status: 'expired',
      threadId: waiting.threadId,
    });
    expect((await interlock.interactions({ threadId: waiting.threadId }))[0]).toMatchObject({
      status: 'failed',
      failureReason: 'timeout',
    });
  });

  it('does not extend a remembered approval: the same call asks again once the window has passed', async () => {
    const { clock, stepBack } = settableClock();
    const note = defineTool({
      name: 'note',
      description: 'Writes a note',
      category: 'write',
      riskLevel: 'MEDIUM',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }) => `noted ${text}`,
    });
    const call = { text: '', toolCalls: [{ id: 'c1', name: 'note', arguments: { text: 'same' } }] };
    const handler = scriptedHandler([{ input: { approved: true, remember: true } }, { input: { approved: true } }]);
    const safeShell = safeShellClassifier();
    const interlock = await createInterlock({
      clock,
      models: { default: scriptedModel([call, 'done', call, 'done']) },
      tools: [note],
      shellClassifier: safeShell,
      workspaceRoot: await mkdtemp(join(tmpdir(), 'interlock-clock-')),
      handlers: { cli: handler },
      approval: { memoryWindow: 1_000 },
    });
    opened.push(interlock);
    const workflow = interlock.registerWorkflow(
      linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['note'] } }], { id: 'memory' }),
    );
    const session = { chatId: 'chat-1' };
    expect((await (await interlock.start(workflow, { channel: 'cli', session })).done()).status).toBe('completed');
    stepBack(TWO_HOURS);
    await pass(1_300);
    expect((await (await interlock.start(workflow, { channel: 'cli', session })).done()).status).toBe('completed');
    expect(handler.requests).toHaveLength(2);
    expect((await interlock.audit()).map((entry) => entry.decidedBy)).toEqual(['person', 'person']);
  });
});

describe('isoTime', () => {
  it('writes each time as toISOString does, whichever time was asked before', () => {
    const times = [0, 1_795_000_000_000, 1_795_000_000_000, 1_795_000_000_001, 1_795_000_000_000, -1, 8.64e15];
    expect(times.map(isoTime)).toEqual(times.map((ms) => new Date(ms).toISOString()));
  });

  it('refuses a time out of range, as toISOString does', () => {
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
