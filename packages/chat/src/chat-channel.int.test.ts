import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHAT_DEMO_NOTES, CHAT_DEMO_TODO } from './chat-demo.js';
import {
  createChatFixture,
  readWorkspaceFile,
  untilSettled,
  type ChatFixture,
  type ChatFixtureOptions,
} from './__fixtures__/chat-fixture.js';

const directories: string[] = [];
const open: ChatFixture[] = [];

afterEach(async () => {
  for (const fixture of open.splice(0)) await fixture.close();
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-chat-int-'));
  directories.push(directory);
  return directory;
}

/** A fresh Interlock (and chat channel) on the SQLite file, as after a restart of the server. */
async function start(
  path: string,
  workspace: string,
  options: Omit<ChatFixtureOptions, 'store' | 'workspace'> = {},
): Promise<ChatFixture> {
  const fixture = await createChatFixture({ ...options, store: { type: 'sqlite', path }, workspace });
  open.push(fixture);
  return fixture;
}

async function stop(fixture: ChatFixture): Promise<void> {
  open.splice(open.indexOf(fixture), 1);
  await fixture.close();
}

describe('ChatChannel on SQLite', () => {
  it('answers with "yes", after a restart, an approval asked before it', async () => {
    const directory = await temporaryDirectory();
    const path = join(directory, 'interlock.db');
    const before = await start(path, directory);
    const { chatId, threadId } = await untilSettled(before.interlock, () => before.chat.open('alice'));
    await untilSettled(before.interlock, () => before.chat.receive(chatId, 'write the notes', 'alice'));
    const [asked] = await before.interlock.pending();
    expect(asked?.operationType).toBe('TOOL_APPROVAL');
    await stop(before);

    const after = await start(path, directory);
    const [approval] = (await after.chat.transcript(chatId)).filter((entry) => entry.role === 'approval');
    expect(approval).toMatchObject({
      interactionId: asked?.interactionId,
      approval: { toolName: 'write_file', status: 'pending' },
    });

    const result = await untilSettled(after.interlock, () => after.chat.receive(chatId, 'yes', 'alice'));

    expect(result).toMatchObject({ kind: 'approval', decision: 'approve', interactionId: asked?.interactionId });
    expect(await readWorkspaceFile(directory, 'NOTES.md')).toBe(CHAT_DEMO_NOTES);
    const thread = (await after.interlock.threads()).find((candidate) => candidate.threadId === threadId);
    expect(thread?.conversation.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(
      ['write the notes'],
    );
    expect(
      after.model.requests.flatMap((request) => request.messages).some((message) => /yes/i.test(message.content)),
    ).toBe(false);
    const transcript = await after.chat.transcript(chatId);
    expect(transcript.filter((entry) => entry.role === 'approval').map((entry) => entry.approval)).toEqual([
      {
        toolName: 'write_file',
        arguments: { path: 'NOTES.md', content: CHAT_DEMO_NOTES },
        status: 'approved',
        answeredBy: 'alice',
      },
    ]);
    expect(transcript.at(-1)).toMatchObject({ role: 'assistant', text: 'Done: write_file NOTES.md.' });
  });

  it('keeps the answered approvals, with who answered them, in the transcript after a restart', async () => {
    const directory = await temporaryDirectory();
    const path = join(directory, 'interlock.db');
    const before = await start(path, directory);
    const { chatId } = await untilSettled(before.interlock, () => before.chat.open('alice'));
    await untilSettled(before.interlock, () =>
      before.chat.receive(chatId, 'write the notes and write the todo', 'alice'),
    );
    await untilSettled(before.interlock, () => before.chat.receive(chatId, 'yes 1', 'alice'));
    await stop(before);

    const after = await start(path, directory);
    // The numbers still hold after the restart: the second approval is number 2.
    await untilSettled(after.interlock, () => after.chat.receive(chatId, 'no 2', 'bob'));

    const transcript = await after.chat.transcript(chatId);
    expect(transcript.filter((entry) => entry.role === 'approval').map((entry) => entry.approval)).toEqual([
      {
        toolName: 'write_file',
        arguments: { path: 'NOTES.md', content: CHAT_DEMO_NOTES },
        status: 'approved',
        answeredBy: 'alice',
      },
      {
        toolName: 'write_file',
        arguments: { path: 'TODO.md', content: CHAT_DEMO_TODO },
        status: 'rejected',
        answeredBy: 'bob',
      },
    ]);
    // The consumed "no 2" follows the approval it answered; alice's "yes 1" was kept in memory only, so the restart forgot it.
    expect(transcript.map((entry) => [entry.role, entry.text.slice(0, 24)])).toEqual([
      ['user', 'write the notes and writ'],
      ['assistant', 'On it: write_file NOTES.'],
      ['approval', 'Allowed write_file with '],
      ['approval', 'Refused write_file with '],
      ['user', 'no 2'],
      ['notice', 'write_file: [SUCCESS] wr'],
      ['notice', 'write_file: [EXECUTION_R'],
      ['assistant', 'Done: write_file NOTES.m'],
    ]);
    expect(await readWorkspaceFile(directory, 'TODO.md')).toBeUndefined();
  });

  it('says "expired" to a yes for an approval whose deadline passed while the server was down', async () => {
    const directory = await temporaryDirectory();
    const path = join(directory, 'interlock.db');
    let now = Date.parse('2026-11-22T10:00:00Z');
    const options = { clock: { now: () => now }, workflow: { approvalTimeout: 60_000 } };
    const before = await start(path, directory, options);
    const { chatId, threadId } = await untilSettled(before.interlock, () => before.chat.open('alice'));
    await untilSettled(before.interlock, () => before.chat.receive(chatId, 'write the notes', 'alice'));
    await stop(before);
    now += 61_000;

    const after = await start(path, directory, options);
    const result = await after.chat.receive(chatId, 'yes', 'alice');

    expect(result).toMatchObject({ kind: 'notice', reason: 'expired' });
    expect(await readWorkspaceFile(directory, 'NOTES.md')).toBeUndefined();
    const transcript = await after.chat.transcript(chatId);
    expect(transcript.filter((entry) => entry.role === 'approval').map((entry) => entry.approval?.status)).toEqual([
      'expired',
    ]);
    expect(transcript.slice(-3)).toMatchObject([
      { role: 'assistant', text: 'Not done: write_file NOTES.md (nobody approved it in time).' },
      { role: 'user', text: 'yes', author: 'alice', consumed: true },
      { role: 'notice', text: expect.stringContaining('expired') },
    ]);
    const thread = (await after.interlock.threads()).find((candidate) => candidate.threadId === threadId);
    expect(thread?.conversation.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(
      ['write the notes'],
    );
  });
});
