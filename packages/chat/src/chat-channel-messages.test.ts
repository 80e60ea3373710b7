import { afterEach, describe, expect, it } from 'vitest';
import { InterlockError } from '@interlock/core';
import { createChatFixture, untilSettled } from './__fixtures__/chat-fixture.js';
import { chatChannelTests, pendingApprovals, userMessagesOf } from './__fixtures__/chat-channel-setup.js';

// Messages to the agent (delivered, queued behind an approval, a yes that is no answer) and
// the chat itself (updates, two chats, an ended or unknown chat). Answering approvals: chat-channel.test.ts.

const { fixtures, setUp, closeAll } = chatChannelTests();

afterEach(closeAll);

describe('ChatChannel', () => {
  it('delivers an ordinary message to the agent, which answers it', async () => {
    const { interlock, chat, chatId, threadId, model } = await setUp();

    const result = await untilSettled(interlock, () => chat.receive(chatId, 'hello there', 'alice'));

    expect(result).toEqual({ kind: 'agent', queued: false });
    expect(model.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'user', content: 'hello there' });
    expect(await userMessagesOf(interlock, threadId)).toEqual(['hello there']);
    const transcript = await chat.transcript(chatId);
    expect(transcript.slice(-2)).toMatchObject([
      { role: 'user', text: 'hello there', author: 'alice' },
      { role: 'assistant', text: 'You said: "hello there"' },
    ]);
  });

  it('gives a yes to the agent when no approval waits and none was just answered', async () => {
    const { interlock, chat, chatId, threadId } = await setUp();

    const result = await untilSettled(interlock, () => chat.receive(chatId, 'yes', 'alice'));

    expect(result).toEqual({ kind: 'agent', queued: false });
    expect(await userMessagesOf(interlock, threadId)).toEqual(['yes']);
  });

  it('queues a message sent while an approval waits and delivers it, in order, when the agent next asks', async () => {
    const { interlock, chat, chatId, threadId, model } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));

    const first = await chat.receive(chatId, 'and after that, tell me a joke', 'alice');
    const second = await chat.receive(chatId, 'a short one', 'bob');

    expect(first).toEqual({ kind: 'agent', queued: true });
    expect(second).toEqual({ kind: 'agent', queued: true });
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes']);
    expect((await chat.transcript(chatId)).filter((entry) => entry.queued).map((entry) => entry.text)).toEqual([
      'and after that, tell me a joke',
      'a short one',
    ]);

    await untilSettled(interlock, () => chat.receive(chatId, 'yes', 'alice'));

    expect(await userMessagesOf(interlock, threadId)).toEqual([
      'write the notes',
      'and after that, tell me a joke',
      'a short one',
    ]);
    expect(model.requests.flatMap((request) => request.messages).some((message) => message.content === 'yes')).toBe(
      false,
    );
    const transcript = await chat.transcript(chatId);
    expect(transcript.some((entry) => entry.queued)).toBe(false);
    expect(
      transcript.filter((entry) => entry.role === 'user' && entry.author === 'bob').map((entry) => entry.text),
    ).toEqual(['a short one']);
  });

  it('passes a yes on to the agent once the agent has answered after the last approval', async () => {
    const { interlock, chat, chatId, threadId } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes and write the todo', 'alice'));
    await untilSettled(interlock, () => chat.receive(chatId, 'yes 1', 'alice'));
    await untilSettled(interlock, () => chat.receive(chatId, 'yes 2', 'alice'));

    // The agent has answered since; a late "yes" now is a message to it.
    const result = await untilSettled(interlock, () => chat.receive(chatId, 'yes', 'alice'));

    expect(result).toEqual({ kind: 'agent', queued: false });
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes and write the todo', 'yes']);
  });

  it('announces every change of a chat on updates$', async () => {
    const { interlock, chat, chatId } = await setUp();
    const updated: string[] = [];
    const subscription = chat.updates$.subscribe({ next: (update) => updated.push(update.chatId) });

    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));
    subscription.unsubscribe();

    expect(updated.length).toBeGreaterThan(0);
    expect(new Set(updated)).toEqual(new Set([chatId]));
  });

  it('keeps two chats apart: a yes in one does not answer the other', async () => {
    const fixture = await createChatFixture();
    fixtures.push(fixture);
    const { interlock, chat } = fixture;
    const first = await untilSettled(interlock, () => chat.open('alice'));
    const second = await untilSettled(interlock, () => chat.open('bob'));
    await untilSettled(interlock, () => chat.receive(first.chatId, 'write the notes', 'alice'));

    const result = await untilSettled(interlock, () => chat.receive(second.chatId, 'yes', 'bob'));

    expect(result).toEqual({ kind: 'agent', queued: false });
    expect(await pendingApprovals(interlock, first.threadId)).toHaveLength(1);
  });

  it('tells the sender when the chat has ended', async () => {
    const { interlock, chat, chatId } = await setUp({ workflow: { maxTurns: 1 } });
    await untilSettled(interlock, () => chat.receive(chatId, 'hello', 'alice'));

    const result = await chat.receive(chatId, 'hello again', 'alice');

    expect(result).toMatchObject({ kind: 'notice', reason: 'chat_ended' });
  });

  it('refuses an unknown chat', async () => {
    const { chat } = await setUp();

    await expect(chat.receive('no-such-chat', 'hello', 'alice')).rejects.toSatisfy(
      (error: unknown) => InterlockError.is(error) && error.code === 'THREAD_NOT_FOUND',
    );
  });
});
