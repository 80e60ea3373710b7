import { InterlockError, type Interlock, type RespondResult } from '@interlock/core';
import type { UserInteractionRequest } from '@interlock/sdk-types';
import { describe, expect, it } from 'vitest';
import { ChatDelivery } from './chat-delivery.js';
import { createChatMemory } from './chat-memory.js';
import { ChatNotes } from './chat-notes.js';

/*
 * Giving a chat's messages to its agent (F16): a message leaves the queue only once its
 * answer is stored, whatever `respond` does — so nothing is lost when the store fails, and
 * nothing reaches two questions.
 */

const asking = (interactionId: string) => ({ interactionId, operationType: 'ADD_MESSAGE' }) as UserInteractionRequest;
const accepted: RespondResult = { status: 'accepted', threadId: 't', continuation: { status: 'scheduled' } };

/** A `respond` that plays the given outcomes in turn and records what it was given. */
function respondWith(...outcomes: (RespondResult | Error)[]) {
  const calls: { interactionId: string; text: unknown }[] = [];
  const interlock: Pick<Interlock, 'respond'> = {
    respond: (interactionId, input) => {
      calls.push({ interactionId, text: input });
      const outcome = outcomes.shift() ?? accepted;
      return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
    },
  };
  return { interlock, calls };
}

function setUp(...outcomes: (RespondResult | Error)[]) {
  const { interlock, calls } = respondWith(...outcomes);
  const delivery = new ChatDelivery(interlock, new ChatNotes(() => 0));
  const memory = createChatMemory('chat-1', 'thread-1');
  const message = (text: string) => ({ text, author: 'ada', at: '2026-01-01T00:00:00.000Z' });
  return { delivery, memory, calls, message };
}

const queuedTexts = (memory: ReturnType<typeof createChatMemory>) => memory.queue.map((entry) => entry.text);

describe('ChatDelivery', () => {
  it('gives a message at once to an agent that asks, and queues it when none does', async () => {
    const { delivery, memory, calls, message } = setUp();
    expect(await delivery.deliver(memory, [], message('first'))).toEqual({ kind: 'agent', queued: true });
    expect(queuedTexts(memory)).toEqual(['first']);

    // The older message goes first; the new one waits for the next question.
    expect(await delivery.deliver(memory, [asking('q1')], message('second'))).toEqual({
      kind: 'agent',
      queued: true,
    });
    expect(calls).toEqual([{ interactionId: 'q1', text: 'first' }]);
    expect(queuedTexts(memory)).toEqual(['second']);
    expect(memory.delivered.map((entry) => entry.text)).toEqual(['first']);

    // q1 took a message already: only a new question takes the next one.
    expect(await delivery.deliver(memory, [asking('q1'), asking('q2')], message('third'))).toEqual({
      kind: 'agent',
      queued: true,
    });
    expect(calls.at(-1)).toEqual({ interactionId: 'q2', text: 'second' });
    expect(queuedTexts(memory)).toEqual(['third']);
  });

  it('keeps the message first in line and the question open when the store fails, and gives it on the next look', async () => {
    const down = new InterlockError('STORE_UNAVAILABLE', 'the database is unreachable');
    const { delivery, memory, calls, message } = setUp(down);
    await expect(delivery.deliver(memory, [asking('q1')], message('hello'))).rejects.toBe(down);
    expect(queuedTexts(memory)).toEqual(['hello']);
    expect(memory.delivered).toEqual([]);
    expect(memory.claimed.has('q1')).toBe(false);

    expect(await delivery.giveOldest(memory, asking('q1'))).toBe(true);
    expect(calls.map((call) => call.text)).toEqual(['hello', 'hello']);
    expect(queuedTexts(memory)).toEqual([]);
    expect(memory.delivered.map((entry) => entry.text)).toEqual(['hello']);
  });

  it('keeps the message for the next question when this one was answered or expired meanwhile', async () => {
    for (const gone of [
      { status: 'already_answered', threadId: 't' },
      { status: 'expired', threadId: 't' },
    ] as const) {
      const { delivery, memory, calls, message } = setUp(gone);
      expect(await delivery.deliver(memory, [asking('q1')], message('hello'))).toEqual({
        kind: 'agent',
        queued: true,
      });
      expect(queuedTexts(memory)).toEqual(['hello']);
      expect(memory.delivered).toEqual([]);
      expect(await delivery.giveOldest(memory, asking('q2'))).toBe(true);
      expect(calls.map((call) => call.interactionId)).toEqual(['q1', 'q2']);
    }
  });

  it('repeats the answer while the store cannot say whether it was stored, giving the message to that question only', async () => {
    const unknown = () => new InterlockError('STORE_OUTCOME_UNKNOWN', 'the commit was cut off');
    const { delivery, memory, calls, message } = setUp(unknown(), { ...accepted, repeated: true });
    expect(await delivery.deliver(memory, [asking('q1')], message('hello'))).toEqual({ kind: 'agent', queued: false });
    expect(calls).toEqual([
      { interactionId: 'q1', text: 'hello' },
      { interactionId: 'q1', text: 'hello' },
    ]);
    expect(queuedTexts(memory)).toEqual([]);

    // Still unknown after three tries: the message stays queued, and the error is the caller's.
    const stuck = setUp(unknown(), unknown(), unknown());
    await expect(stuck.delivery.deliver(stuck.memory, [asking('q1')], stuck.message('hi'))).rejects.toMatchObject({
      code: 'STORE_OUTCOME_UNKNOWN',
    });
    expect(stuck.calls).toHaveLength(3);
    expect(queuedTexts(stuck.memory)).toEqual(['hi']);

    // It may have reached q1 (the thread went on and asks q2): q1 gets it again, which settles it.
    expect(await stuck.delivery.giveOldest(stuck.memory, asking('q2'))).toBe(true);
    expect(stuck.calls.map((call) => call.interactionId)).toEqual(['q1', 'q1', 'q1', 'q1']);
    expect(queuedTexts(stuck.memory)).toEqual([]);
  });

  it('gives a doubted message to the next question once the one it may have reached turns out answered by another', async () => {
    const unknown = () => new InterlockError('STORE_OUTCOME_UNKNOWN', 'the commit was cut off');
    const down = new InterlockError('STORE_UNAVAILABLE', 'the database is unreachable');
    const { delivery, memory, calls, message } = setUp(unknown(), down, {
      status: 'already_answered',
      threadId: 't',
    });
    await expect(delivery.deliver(memory, [asking('q1')], message('hello'))).rejects.toBe(down);
    expect(queuedTexts(memory)).toEqual(['hello']);
    expect(await delivery.giveOldest(memory, asking('q2'))).toBe(true);
    expect(calls.map((call) => call.interactionId)).toEqual(['q1', 'q1', 'q1', 'q2']);
    expect(queuedTexts(memory)).toEqual([]);
  });

  it('drops a message the engine refuses (not a store failure), so it is not tried for ever', async () => {
    const refused = new InterlockError('INTERACTION_INVALID_RESPONSE', 'not a valid answer');
    const { delivery, memory, message } = setUp(refused);
    await expect(delivery.deliver(memory, [asking('q1')], message('hello'))).rejects.toBe(refused);
    expect(queuedTexts(memory)).toEqual([]);
    expect(memory.delivered).toEqual([]);
    expect(memory.claimed.has('q1')).toBe(false);
  });
});
