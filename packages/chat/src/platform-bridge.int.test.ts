import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatPlatform } from './chat-platform.js';
import { ChatPlatformBridge } from './platform-bridge.js';
import { createChatFixture, removeWorkspace, untilSettled } from './__fixtures__/chat-fixture.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** One process: an Interlock on the SQLite file, its chat channel, a bridge to a platform that records posts. */
async function processOn(path: string, workspace: string) {
  const fixture = await createChatFixture({ store: { type: 'sqlite', path }, workspace });
  const posts: string[] = [];
  const platform: ChatPlatform = {
    name: 'Test',
    prefix: 'test',
    post: async (_conversation, text) => void posts.push(text),
    postApproval: async () => 'm1',
    updateApproval: async () => undefined,
    notify: async () => undefined,
  };
  const bridge = new ChatPlatformBridge({ chat: fixture.chat, platform, approverOf: () => 'alice' });
  const close = async () => {
    bridge.close();
    await fixture.close();
  };
  cleanups.push(close);
  return { ...fixture, bridge, posts, close };
}

describe('ChatPlatformBridge across a restart', () => {
  it("shows the agent's answer to the first message after a restart, and nothing from before it again (F57)", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-bridge-'));
    cleanups.push(() => removeWorkspace(directory));
    const path = join(directory, 'interlock.db');
    const first = await processOn(path, directory);
    await untilSettled(first.interlock, () => first.bridge.message({ conversation: 'C1', user: 'U1', text: 'hello' }));
    await first.bridge.flush('C1');
    expect(first.posts).toEqual(['You said: "hello"']);
    await first.close();

    const second = await processOn(path, directory);
    await untilSettled(second.interlock, () =>
      second.bridge.message({ conversation: 'C1', user: 'U1', text: 'again' }),
    );
    await second.bridge.flush('C1');

    expect(second.posts).toEqual(['You said: "again"']);
  });
});
