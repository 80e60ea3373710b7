import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Container } from 'inversify';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { TYPES } from '../di/tokens.js';
import { createInterlock } from '../index.js';
import type { EventBus } from '../events/event-bus.js';
import type { InteractionResponses } from '../interaction/interaction-responses.js';
import { scriptedHandler } from '../testing/index.js';
import type { ThreadRunner } from './thread-runner.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('waiting for answers leaks nothing (F20)', () => {
  it('leaves no subscription or timer behind after a thousand interactions', async () => {
    vi.useFakeTimers();
    let container: Container | undefined;
    const answers = Array.from({ length: 500 }, (_, index) => ({ input: `answer ${index}` }));
    const interlock = await createInterlock({
      handlers: { cli: scriptedHandler(answers) },
      configureContainer: (built) => {
        container = built;
      },
    });
    const bus = container!.get<EventBus>(TYPES.EventBus);
    const responses = container!.get<InteractionResponses>(TYPES.InteractionResponses);
    const runner = container!.get<ThreadRunner>(TYPES.ThreadRunner);
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode('ask', { timeout: '10m' })]));

    // 500 answered by a handler in this process, 500 waited for durably and answered by respond().
    for (let index = 0; index < 500; index += 1) {
      const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();
      expect(outcome.status).toBe('completed');
    }
    for (let index = 0; index < 500; index += 1) {
      await (await interlock.start(workflow, { channel: 'web' })).done();
      const [pending] = await interlock.pending();
      const result = await interlock.respond(pending!.interactionId, `web ${index}`);
      if (result.status !== 'accepted') throw new Error(`answer ${index} was ${result.status}`);
      expect((await result.thread?.done())?.status).toBe('completed');
    }

    expect(await interlock.pending()).toEqual([]);
    expect(bus.openSubscriptions).toBe(0);
    expect(responses.observed).toBe(false);
    expect(runner.activeRuns).toBe(0);
    expect(runner.armedDeadlines).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await interlock.close();
  });
});
