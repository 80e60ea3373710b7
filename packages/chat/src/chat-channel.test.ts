import { afterEach, describe, expect, it } from 'vitest';
import { CHAT_DEMO_NOTES, CHAT_DEMO_TODO } from './chat-demo.js';
import { gatedChatModel, readWorkspaceFile, untilSettled } from './__fixtures__/chat-fixture.js';
import { approvalsOf, chatChannelTests, pendingApprovals, userMessagesOf } from './__fixtures__/chat-channel-setup.js';

// Answering a tool approval in the chat: yes, no, which one, who may, too late, already answered.
// Messages to the agent and the chat itself: chat-channel-messages.test.ts.

const { setUp, closeAll } = chatChannelTests();

afterEach(closeAll);

describe('ChatChannel', () => {
  it('shows a tool approval in the conversation as a message asking for yes or no', async () => {
    const { interlock, chat, chatId } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));

    const [approval] = approvalsOf(await chat.transcript(chatId));
    expect(approval?.approval).toEqual({
      toolName: 'write_file',
      arguments: { path: 'NOTES.md', content: CHAT_DEMO_NOTES },
      status: 'pending',
    });
    expect(approval?.text).toContain('write_file');
    expect(approval?.text).toContain('NOTES.md');
    expect(approval?.text).toContain('Reply "yes"');
    expect(approval?.interactionId).toBeDefined();
  });

  it('approves with "yes": the tool runs, and the model and the conversation never see the "yes"', async () => {
    const { interlock, chat, chatId, threadId, model, workspace } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));
    const [pending] = await pendingApprovals(interlock, threadId);

    const result = await untilSettled(interlock, () => chat.receive(chatId, 'Yes', 'alice'));

    expect(result).toEqual({
      kind: 'approval',
      interactionId: pending?.interactionId,
      decision: 'approve',
      interactionIds: [pending?.interactionId],
    });
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes']);
    const seenByModel = model.requests.flatMap((request) => request.messages).map((message) => message.content);
    expect(seenByModel.some((content) => /yes/i.test(content))).toBe(false);
    expect(model.requests.at(-1)?.messages.at(-1)?.content).toMatch(/^\[SUCCESS\] wrote/);
    const transcript = await chat.transcript(chatId);
    expect(approvalsOf(transcript).map((entry) => entry.approval?.status)).toEqual(['approved']);
    expect(approvalsOf(transcript)[0]?.approval?.answeredBy).toBe('alice');
    expect(transcript.filter((entry) => entry.text === 'Yes')).toMatchObject([
      { role: 'user', author: 'alice', consumed: true },
    ]);
    expect(transcript.some((entry) => entry.queued)).toBe(false);
    expect(transcript.at(-1)).toMatchObject({ role: 'assistant', text: 'Done: write_file NOTES.md.' });
    expect(await pendingApprovals(interlock, threadId)).toEqual([]);
  });

  it('refuses the call with "no": nothing is written and the agent is told it was refused', async () => {
    const { interlock, chat, chatId, threadId, workspace } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));

    const result = await untilSettled(interlock, () => chat.receive(chatId, 'no', 'alice'));

    expect(result).toMatchObject({ kind: 'approval', decision: 'reject' });
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBeUndefined();
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes']);
    const transcript = await chat.transcript(chatId);
    expect(approvalsOf(transcript)[0]?.approval).toMatchObject({ status: 'rejected', answeredBy: 'alice' });
    expect(transcript.at(-1)).toMatchObject({
      role: 'assistant',
      text: 'Not done: write_file NOTES.md (you said no).',
    });
  });

  it('asks which one when two approvals wait and a bare "yes" names none, then "yes 1" resolves only the first', async () => {
    const { interlock, chat, chatId, threadId, workspace, model } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes and write the todo', 'alice'));
    const before = await pendingApprovals(interlock, threadId);
    expect(before.map((request) => request.toolApproval?.toolParameters['path'])).toEqual(['NOTES.md', 'TODO.md']);
    const calls = model.requests.length;

    const unclear = await chat.receive(chatId, 'yes', 'alice');

    expect(unclear.kind).toBe('clarify');
    expect(unclear.kind === 'clarify' ? unclear.text : '').toMatch(/1\. .*NOTES\.md[\s\S]*2\. .*TODO\.md/);
    expect((await chat.transcript(chatId)).at(-1)).toMatchObject({
      role: 'notice',
      text: unclear.kind === 'clarify' ? unclear.text : '',
    });
    expect(await pendingApprovals(interlock, threadId)).toEqual(before);
    expect(model.requests.length).toBe(calls);

    const first = await untilSettled(interlock, () => chat.receive(chatId, 'yes 1', 'alice'));

    expect(first).toMatchObject({ kind: 'approval', decision: 'approve', interactionId: before[0]?.interactionId });
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
    expect(await readWorkspaceFile(workspace, 'TODO.md')).toBeUndefined();
    expect((await pendingApprovals(interlock, threadId)).map((request) => request.interactionId)).toEqual([
      before[1]?.interactionId,
    ]);
    expect(approvalsOf(await chat.transcript(chatId)).map((entry) => entry.approval?.status)).toEqual([
      'approved',
      'pending',
    ]);

    // One left: a bare answer is clear again.
    await untilSettled(interlock, () => chat.receive(chatId, 'no', 'alice'));

    expect(await readWorkspaceFile(workspace, 'TODO.md')).toBeUndefined();
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes and write the todo']);
    expect((await chat.transcript(chatId)).at(-1)).toMatchObject({
      role: 'assistant',
      text: 'Done: write_file NOTES.md.\nNot done: write_file TODO.md (you said no).',
    });
  });

  it('approves every waiting call with "all"', async () => {
    const { interlock, chat, chatId, threadId, workspace } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes and write the todo', 'alice'));
    const before = await pendingApprovals(interlock, threadId);

    const result = await untilSettled(interlock, () => chat.receive(chatId, 'yes all', 'alice'));

    expect(result).toMatchObject({
      kind: 'approval',
      decision: 'approve',
      interactionIds: before.map((request) => request.interactionId),
    });
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
    expect(await readWorkspaceFile(workspace, 'TODO.md')).toBe(CHAT_DEMO_TODO);
  });

  it('changes nothing on an ambiguous reply and asks again; the reply never reaches the agent', async () => {
    const { interlock, chat, chatId, threadId, workspace, model } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));
    const before = await pendingApprovals(interlock, threadId);
    const calls = model.requests.length;

    for (const text of [
      'yes but change the path',
      "no, don't… yes",
      'yes and no',
      'ok',
      'k',
      'fine',
      'sure',
      'yes?',
      'ok?',
      'approve?',
      '👍🏻?',
      '👍',
      'Yes!',
    ]) {
      // issue 14: only an exact answer decides
      const result = await chat.receive(chatId, text, 'alice');
      expect(result.kind).toBe('clarify');
    }

    expect(await pendingApprovals(interlock, threadId)).toEqual(before);
    expect(model.requests.length).toBe(calls);
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes']);
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBeUndefined();
    expect((await chat.transcript(chatId)).some((entry) => entry.queued)).toBe(false);
  });

  it('refuses a yes from someone who may not approve, and still takes one from someone who may', async () => {
    const { interlock, chat, chatId, threadId, workspace } = await setUp({
      canApprove: (author) => author === 'alice',
    });
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));
    const before = await pendingApprovals(interlock, threadId);

    const refused = await chat.receive(chatId, 'yes', 'mallory');

    expect(refused).toMatchObject({ kind: 'notice', reason: 'not_allowed' });
    expect((await chat.transcript(chatId)).at(-1)).toMatchObject({
      role: 'notice',
      text: expect.stringContaining('mallory may not answer'),
    });
    expect(await pendingApprovals(interlock, threadId)).toEqual(before);
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes']);

    await untilSettled(interlock, () => chat.receive(chatId, 'yes', 'alice'));

    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
  });

  it('counts a yes toward a call that needs two approvers, never the requester’s, and runs it at the second (F51)', async () => {
    const { interlock, chat, chatId, threadId, workspace } = await setUp({
      approval: { quorum: { required: 2, minRisk: 'MEDIUM' } },
    });
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));

    // alice opened the chat: she asked for the thread, so her yes does not count.
    const refused = await chat.receive(chatId, 'yes', 'alice');
    expect(refused).toMatchObject({ kind: 'notice', reason: 'not_allowed' });
    expect(await interlock.audit({ threadId })).toContainEqual(
      expect.objectContaining({ decidedBy: 'attempt', rule: 'attempt:refused', responder: 'alice' }),
    );

    // The first approval only counts: the thread goes on waiting.
    expect(await chat.receive(chatId, 'yes', 'bob')).toMatchObject({ kind: 'approval', decision: 'approve' });
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBeUndefined();
    const [waiting] = approvalsOf(await chat.transcript(chatId));
    expect(waiting?.text).toContain('It needs 2 approvals (1 of 2 so far)');

    await untilSettled(interlock, () => chat.receive(chatId, 'yes', 'carol'));
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
  });

  it('says "expired" to a yes that comes after the deadline, and the call does not run', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    const clock = { now: () => now };
    const { interlock, chat, chatId, workspace } = await setUp({ clock, workflow: { approvalTimeout: 60_000 } });
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));
    now += 61_000;

    const late = await untilSettled(interlock, () => chat.receive(chatId, 'yes', 'alice'));

    expect(late).toMatchObject({ kind: 'notice', reason: 'expired' });
    expect(late.kind === 'notice' ? late.text : '').toMatch(/expired/);
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBeUndefined();
    const transcript = await chat.transcript(chatId);
    expect(approvalsOf(transcript)[0]?.approval?.status).toBe('expired');
    expect(transcript.at(-1)).toMatchObject({
      role: 'assistant',
      text: 'Not done: write_file NOTES.md (nobody approved it in time).',
    });
  });

  it('says "already answered" when the numbered approval was answered elsewhere first', async () => {
    const { interlock, chat, chatId, threadId } = await setUp();
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes and write the todo', 'alice'));
    const [notes, todo] = await pendingApprovals(interlock, threadId);
    await chat.receive(chatId, 'yes', 'alice');
    // Bob approves the first one in the web inbox.
    await untilSettled(interlock, () =>
      interlock.respond(notes?.interactionId ?? '', { approved: true }, { responder: 'bob' }),
    );

    const late = await chat.receive(chatId, 'yes 1', 'alice');

    expect(late).toMatchObject({ kind: 'notice', reason: 'already_answered' });
    expect((await pendingApprovals(interlock, threadId)).map((request) => request.interactionId)).toEqual([
      todo?.interactionId,
    ]);
    expect(approvalsOf(await chat.transcript(chatId))[0]?.approval).toMatchObject({
      status: 'approved',
      answeredBy: 'bob',
    });
  });

  it('says "already answered" to a second yes while the agent is still working on the first', async () => {
    const gated = gatedChatModel();
    const { interlock, chat, chatId, threadId, workspace } = await setUp({ model: gated.model });
    await untilSettled(interlock, () => chat.receive(chatId, 'write the notes', 'alice'));
    const busy = gated.hold();
    const first = await chat.receive(chatId, 'yes', 'alice');
    await busy;

    const second = await chat.receive(chatId, 'YES', 'bob');

    expect(first).toMatchObject({ kind: 'approval', decision: 'approve' });
    expect(second).toMatchObject({ kind: 'notice', reason: 'already_answered' });
    expect(second.kind === 'notice' ? second.text : '').toContain('approved by alice');
    await untilSettled(interlock, async () => gated.release());
    expect(await readWorkspaceFile(workspace, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
    expect(await userMessagesOf(interlock, threadId)).toEqual(['write the notes']);
    expect(
      gated.model.requests.flatMap((request) => request.messages).some((message) => /yes/i.test(message.content)),
    ).toBe(false);
  });
});
