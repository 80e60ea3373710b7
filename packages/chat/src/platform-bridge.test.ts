import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalCard, ChatPlatform } from './chat-platform.js';
import { CHAT_DEMO_NOTES } from './chat-demo.js';
import { ChatPlatformBridge } from './platform-bridge.js';
import { createChatFixture, readWorkspaceFile, removeWorkspace, untilSettled } from './__fixtures__/chat-fixture.js';

/** A platform that keeps what it was asked to show. */
function recordingPlatform() {
  const posts: { conversation: string; text: string }[] = [];
  const cards: { ref: string; card: ApprovalCard }[] = [];
  const updates: { ref: string; card: ApprovalCard }[] = [];
  const notices: { user: string; text: string }[] = [];
  const platform: ChatPlatform = {
    name: 'Test',
    prefix: 'test',
    post: async (conversation, text) => void posts.push({ conversation, text }),
    postApproval: async (_conversation, card) => {
      const ref = `m${cards.length + 1}`;
      cards.push({ ref, card });
      return ref;
    },
    updateApproval: async (_conversation, ref, card) => void updates.push({ ref, card }),
    notify: async (_conversation, user, text) => void notices.push({ user, text }),
  };
  return { platform, posts, cards, updates, notices };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setUp(perMinute = 30, approvalTimeout?: number) {
  const fixture = await createChatFixture({
    canApprove: (author) => author === 'alice' || author === 'bob',
    ...(approvalTimeout === undefined ? {} : { workflow: { approvalTimeout } }),
  });
  const recorded = recordingPlatform();
  const bridge = new ChatPlatformBridge({
    chat: fixture.chat,
    platform: recorded.platform,
    approverOf: (user) => ({ U1: 'alice', U2: 'bob', U3: 'mallory' })[user],
    perMinute,
  });
  cleanups.push(async () => {
    bridge.close();
    await fixture.close();
    await removeWorkspace(fixture.workspace);
  });
  const say = (user: string, text: string, replyTo?: string) =>
    untilSettled(fixture.interlock, () => bridge.message({ conversation: 'C1', user, text, replyTo }));
  return { ...fixture, ...recorded, bridge, say };
}

describe('ChatPlatformBridge', () => {
  it('posts an approval with its actions and its arguments, approves it on a button, and updates the message (F57)', async () => {
    const { bridge, cards, updates, say, workspace, interlock } = await setUp();
    await say('U1', 'write the notes');
    await bridge.flush('C1');
    expect(cards).toHaveLength(1);
    expect(cards[0]?.card).toMatchObject({
      toolName: 'write_file',
      status: 'pending',
      actions: ['approve', 'reject', 'edit'],
    });
    expect(cards[0]?.card.argumentsText).toContain('NOTES.md');

    const outcome = await untilSettled(interlock, () =>
      bridge.action({ conversation: 'C1', user: 'U1', interactionId: cards[0]!.card.interactionId, action: 'approve' }),
    );
    await bridge.flush('C1');

    expect(outcome).toEqual({ kind: 'decided', text: 'Approved by alice.' });
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
    expect(updates.at(-1)).toMatchObject({ ref: 'm1', card: { status: 'approved', answeredBy: 'alice', actions: [] } });
  });

  it('takes a "yes" in the thread of an approval message before the agent sees it, and passes other messages on in order (F32)', async () => {
    const { bridge, cards, posts, say, interlock, threadIdOf } = await withThread(await setUp());
    await say('U1', 'write the notes');
    await bridge.flush('C1');
    await say('U1', 'yes', cards[0]!.ref);
    await say('U1', 'hello there');
    await bridge.flush('C1');

    const thread = await interlock.thread(threadIdOf());
    const said = thread?.conversation.filter((message) => message.role === 'user').map((message) => message.content);
    expect(said).toEqual(['write the notes', 'hello there']);
    expect(posts.map((post) => post.text)).toContain('You said: "hello there"');
  });

  it('refuses a button from a platform user it does not know, says so to them alone, and audits it (F51)', async () => {
    const { bridge, cards, notices, say, interlock } = await setUp();
    await say('U1', 'write the notes');
    await bridge.flush('C1');
    const interactionId = cards[0]!.card.interactionId;

    const outcome = await bridge.action({ conversation: 'C1', user: 'U9', interactionId, action: 'approve' });

    expect(outcome.kind).toBe('refused');
    expect(notices).toEqual([{ user: 'U9', text: expect.stringContaining('not an approver') }]);
    const audit = await interlock.audit();
    expect(audit.filter((entry) => entry.decidedBy === 'attempt')).toMatchObject([
      { responder: 'test:U9', rule: 'attempt:refused' },
    ]);
    expect((await interlock.pending()).map((request) => request.interactionId)).toContain(interactionId);
  });

  it('refuses an approver past the rate limit, and audits the decision tried (F51)', async () => {
    const { bridge, cards, say, interlock } = await setUp(2);
    await say('U1', 'write the notes');
    await bridge.flush('C1');
    // Kept for the agent (an approval waits): the second of the two a minute allows.
    await bridge.message({ conversation: 'C1', user: 'U1', text: 'hello' });

    const outcome = await bridge.action({
      conversation: 'C1',
      user: 'U1',
      interactionId: cards[0]!.card.interactionId,
      action: 'approve',
    });

    expect(outcome).toMatchObject({ kind: 'refused', text: expect.stringContaining('Too many') });
    expect((await interlock.audit()).some((entry) => entry.reason?.includes('Too many'))).toBe(true);
  });

  it('updates the approval message when nobody answers in time, and refuses its button afterwards (F28, F57)', async () => {
    const { bridge, cards, updates, say, interlock, notices } = await setUp(30, 300);
    await say('U1', 'write the notes');
    await bridge.flush('C1');
    const interactionId = cards[0]!.card.interactionId;

    // The engine's own deadline (300 ms) times the approval out, and the agent reports it.
    const reported = untilSettled(
      interlock,
      () =>
        new Promise<void>((resolve) => {
          const subscription = interlock.events$.subscribe({
            next: (event) => {
              if (event.type === 'USER_INTERACTION_FAILED' && event.interactionId === interactionId) {
                subscription.unsubscribe();
                resolve();
              }
            },
          });
        }),
    );
    await reported;
    await bridge.flush('C1');
    const late = await bridge.action({ conversation: 'C1', user: 'U1', interactionId, action: 'approve' });

    expect(updates.at(-1)).toMatchObject({ ref: 'm1', card: { status: 'expired', actions: [] } });
    expect(late.kind).toBe('refused');
    expect(notices.at(-1)?.text).toContain('expired');
  });

  it('refuses an edit whose arguments do not fit the tool, then runs the call with arguments that do (F57)', async () => {
    const { bridge, cards, say, workspace, interlock } = await setUp();
    await say('U1', 'write the notes');
    await bridge.flush('C1');
    const interactionId = cards[0]!.card.interactionId;

    const wrong = await bridge.action({
      conversation: 'C1',
      user: 'U1',
      interactionId,
      action: 'edit',
      argumentsText: '{"path": 3}',
    });
    const edited = await untilSettled(interlock, () =>
      bridge.action({
        conversation: 'C1',
        user: 'U1',
        interactionId,
        action: 'edit',
        argumentsText: '{"path": "EDITED.md", "content": "edited"}',
      }),
    );

    expect(wrong.kind).toBe('invalid');
    expect(edited.kind).toBe('decided');
    expect(await readWorkspaceFile(workspace, 'EDITED.md')).toBe('edited');
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBeUndefined();
  });
});

/** Adds `threadIdOf()`: the thread of conversation C1's chat. */
async function withThread<T extends { bridge: ChatPlatformBridge }>(setup: T) {
  return { ...setup, threadIdOf: () => setup.bridge.chatIdOf('C1') };
}
