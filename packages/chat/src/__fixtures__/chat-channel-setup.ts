import type { Interlock } from '@interlock/core';
import type { ChatEntry } from '../chat-types.js';
import {
  createChatFixture,
  removeWorkspace,
  untilSettled,
  type ChatFixture,
  type ChatFixtureOptions,
} from './chat-fixture.js';

/*
 * What the ChatChannel tests (chat-channel*.test.ts) share: chats opened on fresh fixtures,
 * and reads of what the thread and the transcript hold. No vitest import here (this folder is
 * built with the app): each test file closes the fixtures with `afterEach(closeAll)`.
 */

/** The fixtures of one test file: `setUp` opens a chat on a fresh one, `closeAll` closes them after each test. */
export function chatChannelTests() {
  const fixtures: ChatFixture[] = [];
  return {
    /** The fixtures open in this test; a test that creates one itself adds it here. */
    fixtures,
    /** A fresh fixture with a chat opened for alice. */
    async setUp(options: ChatFixtureOptions = {}) {
      const fixture = await createChatFixture(options);
      fixtures.push(fixture);
      const { chatId, threadId } = await untilSettled(fixture.interlock, () => fixture.chat.open('alice'));
      return { ...fixture, chatId, threadId };
    },
    async closeAll() {
      for (const fixture of fixtures.splice(0)) {
        await fixture.close();
        await removeWorkspace(fixture.workspace);
      }
    },
  };
}

export async function conversationOf(interlock: Interlock, threadId: string) {
  const thread = (await interlock.threads()).find((candidate) => candidate.threadId === threadId);
  if (!thread) throw new Error(`no thread ${threadId}`);
  return thread.conversation;
}

export async function userMessagesOf(interlock: Interlock, threadId: string): Promise<string[]> {
  return (await conversationOf(interlock, threadId))
    .filter((message) => message.role === 'user')
    .map((message) => message.content);
}

export async function pendingApprovals(interlock: Interlock, threadId: string) {
  return (await interlock.pending()).filter(
    (request) => request.threadId === threadId && request.operationType === 'TOOL_APPROVAL',
  );
}

export function approvalsOf(transcript: readonly ChatEntry[]) {
  return transcript.filter((entry) => entry.role === 'approval');
}
