import { createInterlock, openStore } from '@interlock/core';
import {
  describeAuditAndMemoryConformance,
  describeLeaseConformance,
  describeStoreConformance,
} from '@interlock/core/testing/conformance';
import { describe, expect, it } from 'vitest';
import { tracedStore } from './traced-store.js';

/* A custom store checked the way a store author would: the conformance suite, imported by package name. */

const untraced = () => undefined;
const fresh = async () => tracedStore(await openStore({ type: 'memory' }), untraced);

describeStoreConformance('examples/traced-store.ts', fresh);
describeAuditAndMemoryConformance('examples/traced-store.ts', fresh);
describeLeaseConformance('examples/traced-store.ts', fresh);

describe('examples/traced-store.ts', () => {
  it('reports each call an Interlock makes, and refusals as failed', async () => {
    const calls: { method: string; failed: boolean }[] = [];
    const store = tracedStore(await openStore({ type: 'memory' }), (method, _ms, failed) =>
      calls.push({ method, failed }),
    );
    const interlock = await createInterlock({ store: { type: 'custom', store } });
    try {
      const workflow = interlock.registerWorkflow({
        id: 'nothing',
        name: 'Nothing',
        version: '1',
        nodes: [
          { id: 'start', type: 'START' },
          { id: 'end', type: 'END' },
        ],
        edges: [{ from: 'start', to: 'end' }],
      });
      const { threadId } = await (await interlock.start(workflow)).done();
      expect(calls).toContainEqual({ method: 'commit', failed: false });
      const stored = await store.getThread(threadId);
      if (stored === undefined) throw new Error('the thread was not stored');
      // A save from a stale copy is refused: the wrapper reports it failed, and passes the refusal on.
      const refused = await store.commit({
        thread: {
          kind: 'save',
          thread: stored,
          expectedVersion: stored.version - 1,
          claim: { kind: 'keep' },
          messagesFrom: 0,
          storedMessages: stored.conversation.length,
        },
      });
      expect(refused).toMatchObject({ status: 'conflict', conflict: { kind: 'thread-changed' } });
      expect(calls.at(-1)).toEqual({ method: 'commit', failed: true });
    } finally {
      await interlock.close();
    }
  });
});
