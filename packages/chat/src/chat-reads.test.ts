import { afterEach, describe, expect, it } from 'vitest';
import type { InteractionRecord, ThreadRecord } from '@interlock/core';
import { InMemoryCheckpointStore } from '@interlock/core/testing';
import { ChatChannel } from './chat-channel.js';
import { CHAT_DEMO_WORKFLOW_ID } from './chat-demo.js';
import { findChatThread, readThreadWaits, type ChatReader } from './chat-reads.js';
import { createChatFixture, removeWorkspace, untilSettled, type ChatFixture } from './__fixtures__/chat-fixture.js';

/** The in-memory store, writing down every read of threads and interactions (issue 15). */
class CountingStore extends InMemoryCheckpointStore {
  readonly reads: string[] = [];

  override listThreads(filter?: Parameters<InMemoryCheckpointStore['listThreads']>[0]) {
    this.reads.push('listThreads');
    return super.listThreads(filter);
  }

  override getThread(threadId: string) {
    this.reads.push(`getThread ${threadId}`);
    return super.getThread(threadId);
  }

  override listInteractions(filter?: Parameters<InMemoryCheckpointStore['listInteractions']>[0]) {
    this.reads.push(`listInteractions ${filter?.threadId ?? 'of every thread'}`);
    return super.listInteractions(filter);
  }

  /** The reads `action` made (and anything else running meanwhile). */
  async readsDuring<T>(action: () => Promise<T>): Promise<string[]> {
    const from = this.reads.length;
    await action();
    return this.reads.slice(from);
  }
}

const fixtures: ChatFixture[] = [];

afterEach(async () => {
  for (const fixture of fixtures.splice(0)) {
    await fixture.close();
    await removeWorkspace(fixture.workspace);
  }
});

async function setUp() {
  const store = new CountingStore();
  const fixture = await createChatFixture({ store: { type: 'custom', store } });
  fixtures.push(fixture);
  return { ...fixture, store };
}

describe('what a chat reads', () => {
  it('reads only its own thread for a message and an answer, never the list of threads, in a store that holds other chats', async () => {
    const { interlock, chat, store } = await setUp();
    const other = await untilSettled(interlock, () => chat.open('bob'));
    await untilSettled(interlock, () => chat.receive(other.chatId, 'write the notes', 'bob'));
    const { chatId, threadId } = await untilSettled(interlock, () => chat.open('alice'));

    const reads = [
      ...(await untilSettled(interlock, () =>
        store.readsDuring(() => chat.receive(chatId, 'write the notes and write the todo', 'alice')),
      )),
      ...(await store.readsDuring(() => chat.receive(chatId, 'yes', 'alice'))),
      ...(await untilSettled(interlock, () => store.readsDuring(() => chat.receive(chatId, 'yes all', 'alice')))),
      ...(await store.readsDuring(() => chat.transcript(chatId))),
    ];

    expect(reads).not.toContain('listThreads');
    expect(reads.filter((read) => read.startsWith('getThread')).every((read) => read === `getThread ${threadId}`)).toBe(
      true,
    );
    expect(reads).not.toContain('listInteractions of every thread');
    expect(reads).not.toContain(`getThread ${other.threadId}`);
  });

  it('finds a chat this process has not met (another server, a restart) with one read of its thread', async () => {
    const { interlock, chat, store } = await setUp();
    const { chatId, threadId } = await untilSettled(interlock, () => chat.open('alice'));
    const another = new ChatChannel({ interlock, workflow: chat.workflowId });

    const reads = await untilSettled(interlock, () =>
      store.readsDuring(() => another.receive(chatId, 'hello there', 'alice')),
    );
    another.close();

    expect(threadId).toBe(chatId);
    expect(reads).not.toContain('listThreads');
    expect(reads).not.toContain('listInteractions of every thread');
  });

  it('finds a chat whose thread has an id of its own (opened before threads took the chat id) through what it waits on', async () => {
    const { interlock, store } = await setUp();
    await untilSettled(interlock, () =>
      interlock.start(CHAT_DEMO_WORKFLOW_ID, {
        channel: 'chat',
        threadId: 'older-thread',
        session: { chatId: 'older-chat', sessionId: 'older-chat', requestedBy: 'alice' },
      }),
    );
    const later = new ChatChannel({ interlock, workflow: CHAT_DEMO_WORKFLOW_ID });
    interlock.setHandler('chat', later.handler);

    const reads = await untilSettled(interlock, () =>
      store.readsDuring(() => later.receive('older-chat', 'hello there', 'alice')),
    );
    const transcript = await later.transcript('older-chat');
    later.close();

    expect(reads).not.toContain('listThreads');
    expect(transcript.slice(-2)).toMatchObject([
      { role: 'user', text: 'hello there', author: 'alice' },
      { role: 'assistant', text: 'You said: "hello there"' },
    ]);
  });

  it('does not take a thread of another channel or workflow for the chat, even under the chat id', async () => {
    const { interlock, chat } = await setUp();
    const { chatId } = await untilSettled(interlock, () => chat.open('alice'));
    await untilSettled(interlock, () =>
      interlock.start(CHAT_DEMO_WORKFLOW_ID, {
        channel: 'elsewhere',
        threadId: 'elsewhere-thread',
        session: { chatId: 'elsewhere-chat', sessionId: 's' },
      }),
    );

    expect(await findChatThread(interlock, chatId, { channel: 'chat', workflow: CHAT_DEMO_WORKFLOW_ID })).toMatchObject(
      { threadId: chatId },
    );
    expect(
      await findChatThread(interlock, chatId, { channel: 'other', workflow: CHAT_DEMO_WORKFLOW_ID }),
    ).toBeUndefined();
    expect(await findChatThread(interlock, chatId, { channel: 'chat', workflow: 'release-agent' })).toBeUndefined();
    expect(
      await findChatThread(interlock, 'elsewhere-chat', { channel: 'chat', workflow: CHAT_DEMO_WORKFLOW_ID }),
    ).toBeUndefined();
    expect(
      await findChatThread(interlock, 'no-such-chat', { channel: 'chat', workflow: CHAT_DEMO_WORKFLOW_ID }),
    ).toBeUndefined();
  });

  it('lists what a thread waits on as interlock.pending() lists it, oldest first', async () => {
    const { interlock, chat } = await setUp();
    const other = await untilSettled(interlock, () => chat.open('bob'));
    const { chatId, threadId } = await untilSettled(interlock, () => chat.open('alice'));
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes and write the todo', 'alice'));

    const waits = await readThreadWaits(interlock, threadId);

    expect(waits?.thread.threadId).toBe(threadId);
    expect(waits?.pending.map((request) => request.toolApproval?.toolParameters['path'])).toEqual([
      'NOTES.md',
      'TODO.md',
    ]);
    expect(waits?.pending).toEqual((await interlock.pending()).filter((request) => request.threadId === threadId));
    expect((await readThreadWaits(interlock, other.threadId))?.pending.map((request) => request.operationType)).toEqual(
      ['ADD_MESSAGE'],
    );
    expect(await readThreadWaits(interlock, 'no-such-thread')).toBeUndefined();
  });
});

describe('readThreadWaits', () => {
  const AT = '2026-11-22T10:00:00.000Z';

  function waitingThread(pendingInteractionIds: string[]): ThreadRecord {
    return {
      threadId: 't1',
      workflowId: CHAT_DEMO_WORKFLOW_ID,
      workflowVersion: '1',
      status: pendingInteractionIds.length > 0 ? 'waiting' : 'running',
      channel: 'chat',
      input: {},
      frames: [],
      variables: {},
      conversation: [],
      toolApproval: { autoApprovedTools: [], approvalTimeout: 60_000 },
      session: { sessionId: 'c1', chatId: 'c1' },
      pendingInteractionIds,
      activeNode: null,
      steps: 0,
      epoch: 1,
      version: 1,
      createdAt: AT,
      updatedAt: AT,
    };
  }

  function askedForMessage(interactionId: string): InteractionRecord {
    const request = {
      interactionId,
      threadId: 't1',
      workflowId: CHAT_DEMO_WORKFLOW_ID,
      nodeId: 'listen',
      operationType: 'ADD_MESSAGE' as const,
      prompt: 'Your message',
      timeout: 0,
      deadline: null,
      metadata: {},
      session: { channel: 'chat', chatId: 'c1' },
      requestedAt: AT,
    };
    return {
      interactionId,
      threadId: 't1',
      nodeId: 'listen',
      request,
      status: 'pending',
      deadline: null,
      createdAt: AT,
      updatedAt: AT,
    };
  }

  it('reads the thread before its interactions, so one the thread waits on is never missed while another process asks', async () => {
    // The other process stores the interaction, then the thread waiting on it; here that
    // happens while the thread is read, after a read of the interactions started together would have looked.
    let asked = false;
    const reads: string[] = [];
    const reader: ChatReader = {
      async thread() {
        reads.push('thread');
        await Promise.resolve();
        asked = true;
        return waitingThread(['i-1']);
      },
      async interactions() {
        reads.push('interactions');
        return asked ? [askedForMessage('i-1')] : [];
      },
    };

    const waits = await readThreadWaits(reader, 't1');

    expect(waits?.pending.map((request) => request.interactionId)).toEqual(['i-1']);
    expect(reads).toEqual(['thread', 'interactions']);
  });

  it('reads no interactions of a thread that waits on none', async () => {
    const reads: string[] = [];
    const reader: ChatReader = {
      async thread() {
        reads.push('thread');
        return waitingThread([]);
      },
      async interactions() {
        reads.push('interactions');
        return [askedForMessage('i-answered-meanwhile')];
      },
    };

    expect(await readThreadWaits(reader, 't1')).toMatchObject({ pending: [] });
    expect(reads).toEqual(['thread']);
  });
});
