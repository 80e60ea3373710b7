import { afterAll, beforeAll } from 'vitest';
import { RELEASE_QUESTION_WORKFLOW } from '../src/demo/web-demo.js';
import { startHarness, type WebHarness } from './web-harness.js';

/*
 * What the web API tests (web-api*.int.test.ts) share: the answer route, and one server for
 * a whole describe on which alice and bob approve the release agent, alice alone the release
 * question and the chat, and carol nothing.
 */

export const respond = (interactionId: string) => `/api/interactions/${interactionId}/respond`;

/**
 * Starts the server before the tests of the describe it is called in, and closes it after them.
 * `harness` stands for that server (it throws when read before it started); `alice` is her
 * token; `pendingIds` lists the interactions that wait, across all threads.
 */
export function useApiHarness() {
  let current: WebHarness | undefined;
  beforeAll(async () => {
    current = await startHarness({
      workflowApprovers: {
        'release-agent': ['alice', 'bob'],
        [RELEASE_QUESTION_WORKFLOW]: ['alice'],
        'chat-agent': ['alice'],
      },
      approvers: ['alice', 'bob', 'carol'],
    });
  });
  afterAll(() => current?.close());

  const harness = new Proxy({} as WebHarness, {
    get(_target, name) {
      if (!current) throw new Error('the web API harness starts in beforeAll: use it inside a test');
      return Reflect.get(current, name);
    },
  });
  const alice = () => ({ token: harness.tokens['alice']! });
  const pendingIds = async () => (await harness.interlock.pending()).map((request) => request.interactionId);
  return { harness, alice, pendingIds };
}
