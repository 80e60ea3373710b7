import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InterlockEvent, UserInteractionHandlerResult } from '@interlock/sdk-types';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, InterlockError, type Interlock } from '../index.js';
import { scriptedHandler, scriptedModel } from '../testing/index.js';

const interactionEvents = (events: InterlockEvent[]) =>
  events.filter((event) => event.type.startsWith('USER_INTERACTION_')).map((event) => event.type);

function collect(interlock: Interlock): InterlockEvent[] {
  const events: InterlockEvent[] = [];
  interlock.events$.subscribe((event) => events.push(event));
  return events;
}

let interlock: Interlock | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await interlock?.close();
  interlock = undefined;
});

describe('UserInteractionCoordinator', () => {
  it('asks the channel handler and reports REQUESTED → RESPONDED → PROCESSED in order (F8)', async () => {
    const handler = scriptedHandler([{ input: 'blue' }]);
    interlock = await createInterlock({ handlers: { cli: handler } });
    const events = collect(interlock);
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));

    const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();

    expect(outcome).toMatchObject({ status: 'completed', output: 'blue' });
    expect(interactionEvents(events)).toEqual([
      'USER_INTERACTION_REQUESTED',
      'USER_INTERACTION_RESPONDED',
      'USER_INTERACTION_PROCESSED',
    ]);
    expect(handler.requests[0]).toMatchObject({
      operationType: 'UPDATE_VARIABLES',
      prompt: 'Your answer?',
      nodeId: 'ask',
    });
    const ids = new Set(
      events
        .filter((event) => 'interactionId' in event)
        .map((event) => (event as { interactionId: string }).interactionId),
    );
    expect(ids.size).toBe(1);
  });

  it('checkpoints the pending interaction before the handler is asked', async () => {
    let seenByHandler: unknown;
    interlock = await createInterlock({
      handlers: {
        cli: scriptedHandler([
          async (request) => {
            seenByHandler = (await interlock!.pending()).map((pending) => pending.interactionId);
            expect(request.interactionId).toBeTruthy();
            return { outcome: 'responded', input: 'ok' };
          },
        ]),
      },
    });
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
    const thread = await interlock.start(workflow, { channel: 'cli' });
    await thread.done();
    expect(seenByHandler).toHaveLength(1);
  });

  it('waits durably when the channel has no handler, and goes on after respond() (one rule for every wait)', async () => {
    interlock = await createInterlock();
    const events = collect(interlock);
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));

    const first = await (await interlock.start(workflow, { channel: 'web' })).done();
    expect(first.status).toBe('waiting');
    const [pending] = await interlock.pending();
    expect(pending).toMatchObject({ nodeId: 'ask', prompt: 'Your answer?', session: { channel: 'web' } });
    expect(events.map((event) => event.type)).toContain('THREAD_SUSPENDED');

    const result = await interlock.respond(pending!.interactionId, 'from the inbox', { responder: 'ada' });
    expect(result.status).toBe('accepted');
    const outcome = result.status === 'accepted' ? await result.thread?.done() : undefined;

    expect(outcome).toMatchObject({ status: 'completed', output: 'from the inbox' });
    expect(await interlock.pending()).toEqual([]);
    expect(interactionEvents(events)).toEqual([
      'USER_INTERACTION_REQUESTED',
      'USER_INTERACTION_RESPONDED',
      'USER_INTERACTION_PROCESSED',
    ]);
    expect(events.find((event) => event.type === 'USER_INTERACTION_RESPONDED')).toMatchObject({ responder: 'ada' });
  });

  it('keeps the first answer and reports a second one as already answered', async () => {
    interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
    await (await interlock.start(workflow, { channel: 'web' })).done();
    const [pending] = await interlock.pending();

    const [first, second] = await Promise.all([
      interlock.respond(pending!.interactionId, 'first'),
      interlock.respond(pending!.interactionId, 'second'),
    ]);

    expect(first.status).toBe('accepted');
    expect(second.status).toBe('already_answered');
    const outcome = first.status === 'accepted' ? await first.thread?.done() : undefined;
    expect(outcome).toMatchObject({ output: 'first' });
  });

  it('refuses an answer the input kind cannot accept and keeps the interaction pending', async () => {
    interlock = await createInterlock();
    const workflow = interlock.registerWorkflow(linearWorkflow([askNode('ask', { input: { kind: 'confirm' } })]));
    await (await interlock.start(workflow, { channel: 'web' })).done();
    const [pending] = await interlock.pending();

    const refused = interlock.respond(pending!.interactionId, 'maybe');
    await expect(refused).rejects.toMatchObject({ code: 'INTERACTION_INVALID_RESPONSE' });
    expect(await interlock.pending()).toHaveLength(1);

    const accepted = await interlock.respond(pending!.interactionId, 'Y');
    const outcome = accepted.status === 'accepted' ? await accepted.thread?.done() : undefined;
    expect(outcome).toMatchObject({ status: 'completed', output: true });
  });

  it('throws INTERACTION_NOT_FOUND for an unknown interaction id', async () => {
    interlock = await createInterlock();
    const error = await interlock.respond('nope', 'x').catch((caught: unknown) => caught);
    expect(InterlockError.is(error) && error.code).toBe('INTERACTION_NOT_FOUND');
  });

  it('ADD_MESSAGE appends the rendered answer to the conversation, and the next LLM node sees it (F5)', async () => {
    const model = scriptedModel(['Which cuisine?', 'Try dan dan noodles.']);
    interlock = await createInterlock({
      models: { default: model },
      handlers: { cli: scriptedHandler([{ input: 'Sichuan' }]) },
    });
    const workflow = await interlock.loadWorkflow('examples/workflows/ask-user.toml');

    const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();

    expect(outcome).toMatchObject({ status: 'completed', output: 'Try dan dan noodles.' });
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'I like Sichuan food.' });
  });

  it('never turns a USER_INTERACTION node into a prompt for the model (F9)', async () => {
    const model = scriptedModel(['Plan A', 'Done']);
    interlock = await createInterlock({
      models: { default: model },
      handlers: { cli: scriptedHandler([{ input: 'yes' }]) },
    });
    const workflow = await interlock.loadWorkflow('examples/workflows/plan-approval.toml');

    await (await interlock.start(workflow, { channel: 'cli' })).done();

    const everything = JSON.stringify(model.requests.map((request) => request.messages));
    expect(model.requests).toHaveLength(2);
    expect(everything).not.toContain('Go ahead with this plan?');
  });

  describe('FAILED reasons (F8, F28)', () => {
    it('timeout: nobody answers before the deadline', async () => {
      vi.useFakeTimers();
      let handlerSignal: AbortSignal | undefined;
      const neverAnswers = (_request: unknown, context: { signal: AbortSignal }) =>
        new Promise<UserInteractionHandlerResult>(() => {
          handlerSignal = context.signal;
        });
      interlock = await createInterlock({ handlers: { cli: scriptedHandler([neverAnswers]) } });
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode('ask', { timeout: '5m' })]));
      const thread = await interlock.start(workflow, { channel: 'cli' });

      await vi.advanceTimersByTimeAsync(5 * 60_000 - 1);
      expect(interactionEvents(events)).toEqual(['USER_INTERACTION_REQUESTED']);
      await vi.advanceTimersByTimeAsync(1);
      const outcome = await thread.done();

      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'INTERACTION_TIMEOUT', nodeId: 'ask' } });
      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({ reason: 'timeout' });
      expect(handlerSignal?.aborted).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('timeout: a durable wait whose deadline passes fails, and a late answer is refused as expired', async () => {
      vi.useFakeTimers();
      interlock = await createInterlock();
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode('ask', { timeout: 1_000 })]));
      await (await interlock.start(workflow, { channel: 'web' })).done();
      const [pending] = await interlock.pending();

      await vi.advanceTimersByTimeAsync(1_000);
      await vi.waitFor(() => expect(events.map((event) => event.type)).toContain('THREAD_FAILED'));

      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({ reason: 'timeout' });
      expect(await interlock.respond(pending!.interactionId, 'late')).toMatchObject({ status: 'expired' });
    });

    it('timeout: an answer after the deadline is refused as expired even before the timer fires', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      interlock = await createInterlock({ clock: { now: () => now } });
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode('ask', { timeout: '1h' })]));
      await (await interlock.start(workflow, { channel: 'web' })).done();
      const [pending] = await interlock.pending();
      now += 3_600_000;

      expect(await interlock.respond(pending!.interactionId, 'late')).toMatchObject({ status: 'expired' });
      await vi.waitFor(async () => expect((await interlock!.threads())[0]).toMatchObject({ status: 'failed' }));
      expect((await interlock.threads())[0]?.error).toMatchObject({ code: 'INTERACTION_TIMEOUT' });
    });

    it('cancelled: thread.cancel() cancels the pending interaction (F10)', async () => {
      interlock = await createInterlock({
        handlers: { cli: scriptedHandler([(_request, context) => new Promise(() => void context.signal)]) },
      });
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
      const thread = await interlock.start(workflow, { channel: 'cli' });
      await vi.waitFor(() => expect(interactionEvents(events)).toEqual(['USER_INTERACTION_REQUESTED']));

      await thread.cancel('changed my mind');

      expect(await thread.done()).toMatchObject({ status: 'cancelled' });
      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({ reason: 'cancelled' });
      expect(events.at(-1)).toMatchObject({ type: 'THREAD_CANCELLED', reason: 'changed my mind' });
    });

    it('cancelled: cancelling a thread that waits in the store', async () => {
      interlock = await createInterlock();
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
      const thread = await interlock.start(workflow, { channel: 'web' });
      await thread.done();

      await interlock.cancel(thread.threadId);

      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({ reason: 'cancelled' });
      expect((await interlock.threads())[0]).toMatchObject({ status: 'cancelled' });
      expect(await interlock.pending()).toEqual([]);
    });

    it('cancelled: the person cancels in the app', async () => {
      interlock = await createInterlock({
        handlers: { cli: scriptedHandler([{ outcome: 'cancelled', reason: 'closed the dialog' }]) },
      });
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
      const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();
      expect(outcome.status).toBe('cancelled');
      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({
        reason: 'cancelled',
        message: 'closed the dialog',
      });
    });

    it('handler_error: the handler throws', async () => {
      interlock = await createInterlock({
        handlers: { cli: { handle: async () => Promise.reject(new Error('terminal went away')) } },
      });
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
      const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'INTERACTION_HANDLER_FAILED' } });
      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({
        reason: 'handler_error',
        message: expect.stringContaining('terminal went away'),
      });
    });

    it('invalid_response: the handler answers something the input kind refuses', async () => {
      interlock = await createInterlock({ handlers: { cli: scriptedHandler([{ input: 'purple' }]) } });
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(
        linearWorkflow([askNode('ask', { input: { kind: 'choice', options: ['red', 'green'] } })]),
      );
      const outcome = await (await interlock.start(workflow, { channel: 'cli' })).done();
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'INTERACTION_INVALID_RESPONSE' } });
      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({
        reason: 'invalid_response',
        message: expect.stringContaining('"red", "green"'),
      });
    });

    it('invalid_response: the handler returns something that is not a handler result', async () => {
      interlock = await createInterlock({ handlers: { cli: { handle: async () => 'yes' as never } } });
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
      await (await interlock.start(workflow, { channel: 'cli' })).done();
      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({
        reason: 'invalid_response',
      });
    });

    it('no_handler: the thread runs on channel "none", where nobody can answer', async () => {
      interlock = await createInterlock();
      const events = collect(interlock);
      const workflow = interlock.registerWorkflow(linearWorkflow([askNode()]));
      const outcome = await (await interlock.start(workflow, { channel: 'none' })).done();
      expect(outcome).toMatchObject({ status: 'failed', error: { code: 'INTERACTION_NO_HANDLER' } });
      expect(interactionEvents(events)).toEqual(['USER_INTERACTION_REQUESTED', 'USER_INTERACTION_FAILED']);
      expect(events.find((event) => event.type === 'USER_INTERACTION_FAILED')).toMatchObject({ reason: 'no_handler' });
    });
  });

  it('lets a handler read variables through the context, and aborts its signal when answered elsewhere', async () => {
    let signal: AbortSignal | undefined;
    let seen: unknown;
    interlock = await createInterlock({
      handlers: {
        cli: scriptedHandler([
          (_request, context) => {
            signal = context.signal;
            seen = context.getVariable('greeting');
            return new Promise<UserInteractionHandlerResult>(() => undefined);
          },
        ]),
      },
    });
    const workflow = interlock.registerWorkflow(
      linearWorkflow([askNode()], { variables: [{ name: 'greeting', scope: 'thread', default: 'hello' }] }),
    );
    const thread = await interlock.start(workflow, { channel: 'cli' });
    await vi.waitFor(async () => expect(await interlock!.pending()).toHaveLength(1));
    const [pending] = await interlock.pending();

    await interlock.respond(pending!.interactionId, 'answered on the web');

    expect(await thread.done()).toMatchObject({ status: 'completed', output: 'answered on the web' });
    expect(seen).toBe('hello');
    expect(signal?.aborted).toBe(true);
  });
});
