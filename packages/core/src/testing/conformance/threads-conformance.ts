import { describe, expect, it } from 'vitest';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import {
  AWKWARD_TEXT,
  committed,
  createThread,
  interactionRecord,
  LATER,
  present,
  refused,
  response,
  save,
  threadRecord,
  toolCallMessage,
  UNICODE_TEXT,
  userMessage,
} from './store-records.js';

/** Threads, their conversations, interactions and global variables: part of {@link describeStoreConformance}. */
export function describeThreadsAndInteractions(store: () => ICheckpointStore): void {
  describe('threads', () => {
    it('creates a thread at version 1 and reads it back, alone or with its interactions and tool calls', async () => {
      const result = await committed(store(), { thread: { kind: 'create', thread: threadRecord({ version: 7 }) } });
      expect(result.thread).toMatchObject({ version: 1, epoch: 1 });
      expect(await store().getThread('thread-1')).toEqual(threadRecord({ version: 1 }));
      expect(await store().loadThread('thread-1')).toEqual({
        thread: threadRecord({ version: 1 }),
        interactions: [],
        toolCalls: [],
      });
      expect(await store().getThread('no-such-thread')).toBeUndefined();
      expect(await store().loadThread('no-such-thread')).toBeUndefined();
    });

    it('refuses a second thread with the same id and keeps the first', async () => {
      await createThread(store(), threadRecord({ channel: 'first' }));
      expect(
        await refused(store(), { thread: { kind: 'create', thread: threadRecord({ channel: 'second' }) } }),
      ).toEqual({
        kind: 'thread-exists',
        threadId: 'thread-1',
      });
      expect((await store().getThread('thread-1'))?.channel).toBe('first');
    });

    it('lists threads, all of them or those with a status', async () => {
      await createThread(store(), threadRecord({ threadId: 'a', status: 'running' }));
      await createThread(store(), threadRecord({ threadId: 'b', status: 'waiting' }));
      await createThread(store(), threadRecord({ threadId: 'c', status: 'waiting' }));
      const ids = (threads: { threadId: string }[]) => threads.map((thread) => thread.threadId).sort();
      expect(ids(await store().listThreads())).toEqual(['a', 'b', 'c']);
      expect(ids(await store().listThreads({ status: 'waiting' }))).toEqual(['b', 'c']);
      expect(await store().listThreads({ status: 'completed' })).toEqual([]);
      expect((await store().listThreads({ status: 'running' }))[0]).toEqual(threadRecord({ threadId: 'a' }));
    });

    it('saves every field at the version and epoch read, one version up', async () => {
      const created = await createThread(store());
      const changes = {
        status: 'waiting' as const,
        variables: { count: 3, nested: { list: [1, 'two', null, true] } },
        frames: [
          {
            workflowId: 'workflow-a',
            workflowVersion: '1.0.0',
            cursor: 'review',
            variables: { local: 'x' },
            loops: [{ nodeId: 'each', items: [1, 2], index: 1, variables: { item: 2 } }],
          },
        ],
        pendingInteractionIds: ['interaction-1'],
        activeNode: { workflowId: 'workflow-a', nodeId: 'review', state: { round: 2 } },
        steps: 4,
        output: { summary: 'done' },
        error: { code: 'MODEL_FAILED' as const, message: 'the model went away', nodeId: 'agent' },
        updatedAt: LATER,
      };
      const result = await committed(store(), { thread: save(created, changes) });
      expect(result.thread).toMatchObject({ version: 2, epoch: 1 });
      expect(await store().getThread('thread-1')).toEqual({ ...created, ...changes, version: 2 });
      const again = present(await store().getThread('thread-1'));
      await committed(store(), { thread: save(again, { steps: 5 }) });
      expect(await store().getThread('thread-1')).toMatchObject({ version: 3, steps: 5 });
    });

    it('refuses a save at a stale version or epoch, and changes nothing of the unit', async () => {
      const created = await createThread(store(), threadRecord({ conversation: [userMessage('one')] }));
      await committed(store(), { thread: save(created, { steps: 1 }) });
      const stale = await refused(store(), {
        thread: save(created, { steps: 99, conversation: [userMessage('one'), userMessage('stale')] }),
        interactions: [{ kind: 'open', interaction: interactionRecord() }],
        globals: [{ kind: 'set', scope: 'workflow-a', name: 'x', value: 1 }],
      });
      expect(stale).toEqual({ kind: 'thread-changed', threadId: 'thread-1', storedVersion: 2, storedEpoch: 1 });
      expect(await store().getThread('thread-1')).toMatchObject({
        version: 2,
        steps: 1,
        conversation: [userMessage('one')],
      });
      expect(await store().getInteraction('interaction-1')).toBeUndefined();
      expect(await store().getGlobalVariables('workflow-a')).toEqual({});
      const otherEpoch = await refused(store(), {
        thread: save({ ...present(await store().getThread('thread-1')), epoch: 7 }),
      });
      expect(otherEpoch).toMatchObject({ kind: 'thread-changed', storedEpoch: 1 });
      expect(await refused(store(), { thread: save(threadRecord({ threadId: 'nobody' })) })).toEqual({
        kind: 'thread-not-found',
        threadId: 'nobody',
      });
    });

    it('appends new messages, replaces them from the first that changed, and keeps text exactly', async () => {
      const created = await createThread(store(), threadRecord({ conversation: [userMessage(UNICODE_TEXT)] }));
      const appended = [userMessage(UNICODE_TEXT), toolCallMessage('call-1', { text: AWKWARD_TEXT })];
      await committed(store(), { thread: save(created, { conversation: appended }) });
      const stored = present(await store().getThread('thread-1'));
      expect(stored.conversation).toEqual(appended);
      // The second message is replaced: a writer says so by the messages it keeps (messagesFrom).
      const replaced = [userMessage(UNICODE_TEXT), userMessage('instead'), userMessage('and more')];
      await committed(store(), { thread: save(stored, { conversation: replaced }, { kind: 'keep' }, 1) });
      expect((await store().getThread('thread-1'))?.conversation).toEqual(replaced);
      // And shortened.
      const shorter = present(await store().getThread('thread-1'));
      await committed(store(), {
        thread: save(shorter, { conversation: [userMessage(UNICODE_TEXT)] }, { kind: 'keep' }, 1),
      });
      expect((await store().getThread('thread-1'))?.conversation).toEqual([userMessage(UNICODE_TEXT)]);
    });
  });

  describe('interactions', () => {
    it('opens interactions with the thread that waits on them, and lists them oldest first by thread and status', async () => {
      const created = await createThread(store());
      await committed(store(), {
        thread: save(created, { status: 'waiting', pendingInteractionIds: ['interaction-2', 'interaction-1'] }),
        interactions: [
          { kind: 'open', interaction: interactionRecord({ interactionId: 'interaction-2', createdAt: LATER }) },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'interaction-1' }) },
        ],
      });
      await createThread(store(), threadRecord({ threadId: 'thread-2' }));
      await committed(store(), {
        interactions: [
          { kind: 'open', interaction: interactionRecord({ interactionId: 'other', threadId: 'thread-2' }) },
        ],
      });
      const ids = (interactions: { interactionId: string }[]) =>
        interactions.map((interaction) => interaction.interactionId);
      expect(ids(await store().listInteractions({ threadId: 'thread-1' }))).toEqual(['interaction-1', 'interaction-2']);
      expect(ids(await store().listInteractions({ status: 'pending' }))).toEqual([
        'interaction-1',
        'other',
        'interaction-2',
      ]);
      expect(ids(await store().listInteractions({ status: 'responded' }))).toEqual([]);
      expect(ids(present(await store().loadThread('thread-1')).interactions)).toEqual([
        'interaction-1',
        'interaction-2',
      ]);
      expect(await store().getInteraction('interaction-1')).toEqual(interactionRecord());
      // A store that loads an interaction's thread in one read loads it as loadThread does.
      const loadThreadOf = store().loadThreadOf?.bind(store());
      if (loadThreadOf !== undefined) {
        expect(await loadThreadOf('interaction-2')).toEqual(await store().loadThread('thread-1'));
        expect(await loadThreadOf('no-such-interaction')).toBeUndefined();
      }
    });

    it('keeps the first answer: a second is refused with the interaction as stored', async () => {
      await committed(store(), { interactions: [{ kind: 'open', interaction: interactionRecord() }] });
      await committed(store(), {
        interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response('yes') }],
      });
      const answered = {
        ...interactionRecord(),
        status: 'responded',
        response: response('yes'),
        updatedAt: response('yes').respondedAt,
      };
      expect(await store().getInteraction('interaction-1')).toEqual(answered);
      expect(
        await refused(store(), {
          interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response('no', 'bob') }],
        }),
      ).toEqual({ kind: 'interaction-not-pending', interaction: answered });
      expect(
        await refused(store(), {
          interactions: [{ kind: 'answer', interactionId: 'missing', response: response('no') }],
        }),
      ).toEqual({ kind: 'interaction-not-found', interactionId: 'missing' });
    });

    it('gives of concurrent answers exactly one the interaction', async () => {
      await committed(store(), { interactions: [{ kind: 'open', interaction: interactionRecord() }] });
      const results = await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map((who) =>
          store().commit({
            interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response(who, who) }],
          }),
        ),
      );
      expect(results.filter((result) => result.status === 'committed')).toHaveLength(1);
      const stored = present(await store().getInteraction('interaction-1'));
      expect(stored.response?.responder).toBe(stored.response?.input);
    });

    it('consumes an answer with the save that applies it, and only an answer', async () => {
      const created = await createThread(
        store(),
        threadRecord({ status: 'waiting', pendingInteractionIds: ['interaction-1'] }),
      );
      await committed(store(), { interactions: [{ kind: 'open', interaction: interactionRecord() }] });
      // An answer and its consumption in one unit (a run that took the answer in): processed at once.
      await committed(store(), {
        thread: save(created, { status: 'running', pendingInteractionIds: [] }),
        interactions: [
          { kind: 'answer', interactionId: 'interaction-1', response: response('yes') },
          { kind: 'consume', interactionId: 'interaction-1', at: LATER },
        ],
      });
      expect(await store().getInteraction('interaction-1')).toMatchObject({
        status: 'processed',
        response: response('yes'),
      });
      // Consuming a pending one does nothing.
      await committed(store(), {
        interactions: [{ kind: 'open', interaction: interactionRecord({ interactionId: 'i-2' }) }],
      });
      await committed(store(), { interactions: [{ kind: 'consume', interactionId: 'i-2', at: LATER }] });
      expect((await store().getInteraction('i-2'))?.status).toBe('pending');
    });

    it('fails only pending interactions, and says which it failed', async () => {
      await committed(store(), {
        interactions: [
          { kind: 'open', interaction: interactionRecord({ interactionId: 'open-one' }) },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'answered-one' }) },
        ],
      });
      await committed(store(), {
        interactions: [{ kind: 'answer', interactionId: 'answered-one', response: response('yes') }],
      });
      const result = await committed(store(), {
        interactions: ['open-one', 'answered-one', 'missing'].map((interactionId) => ({
          kind: 'fail' as const,
          interactionId,
          reason: 'timeout' as const,
          message: AWKWARD_TEXT,
          at: LATER,
        })),
      });
      expect(result.failed).toEqual(['open-one']);
      expect(await store().getInteraction('open-one')).toMatchObject({
        status: 'failed',
        failureReason: 'timeout',
        failureMessage: AWKWARD_TEXT,
        updatedAt: LATER,
      });
      expect((await store().getInteraction('answered-one'))?.status).toBe('responded');
    });

    it('refuses the whole unit when one answer in it comes second', async () => {
      const created = await createThread(
        store(),
        threadRecord({ status: 'waiting', pendingInteractionIds: ['interaction-1'] }),
      );
      await committed(store(), { interactions: [{ kind: 'open', interaction: interactionRecord() }] });
      await committed(store(), {
        interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response('first') }],
      });
      await refused(store(), {
        thread: save(created, { status: 'completed', pendingInteractionIds: [] }),
        interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response('second') }],
        jobs: [
          { kind: 'continue', threadId: 'thread-1', workflowId: 'workflow-a', runAt: LATER, key: 'continue:thread-1' },
        ],
      });
      expect(await store().getThread('thread-1')).toMatchObject({ status: 'waiting', version: 1 });
    });
  });

  describe('global variables', () => {
    it('sets, keeps what exists when asked to, deletes, and keeps scopes apart', async () => {
      await committed(store(), {
        globals: [
          { kind: 'set', scope: 'workflow-a', name: 'count', value: 1 },
          { kind: 'set', scope: 'workflow-a', name: 'text', value: UNICODE_TEXT },
          { kind: 'set', scope: 'workflow-b', name: 'count', value: { nested: [AWKWARD_TEXT] } },
        ],
      });
      await committed(store(), {
        globals: [
          { kind: 'set-if-absent', scope: 'workflow-a', name: 'count', value: 99 },
          { kind: 'set-if-absent', scope: 'workflow-a', name: 'fresh', value: 'new' },
          { kind: 'delete', scope: 'workflow-a', name: 'text' },
        ],
      });
      expect(await store().getGlobalVariables('workflow-a')).toEqual({ count: 1, fresh: 'new' });
      expect(await store().getGlobalVariables('workflow-b')).toEqual({ count: { nested: [AWKWARD_TEXT] } });
      expect(await store().getGlobalVariables('nobody')).toEqual({});
    });

    it('compare-and-set writes only over the value read, whatever its key order, and absent means absent (F3)', async () => {
      const cas = (expected: unknown, value: unknown) => ({
        globals: [{ kind: 'compare-and-set' as const, scope: 'w', name: 'n', expected, value }],
      });
      await committed(store(), cas(undefined, { b: 1, a: 2 }));
      expect(await refused(store(), cas(undefined, 'again'))).toEqual({
        kind: 'global-changed',
        scope: 'w',
        name: 'n',
      });
      await committed(store(), cas({ a: 2, b: 1 }, 3));
      expect(await refused(store(), cas(2, 4))).toEqual({ kind: 'global-changed', scope: 'w', name: 'n' });
      expect(await store().getGlobalVariables('w')).toEqual({ n: 3 });
    });

    it('loses no update when 20 writers each add one, reading again on a conflict (F3)', async () => {
      await committed(store(), { globals: [{ kind: 'set', scope: 'w', name: 'count', value: 0 }] });
      const increment = async () => {
        for (;;) {
          const current = (await store().getGlobalVariables('w'))['count'] as number;
          const result = await store().commit({
            globals: [{ kind: 'compare-and-set', scope: 'w', name: 'count', expected: current, value: current + 1 }],
          });
          if (result.status === 'committed') return;
        }
      };
      await Promise.all(Array.from({ length: 20 }, increment));
      expect(await store().getGlobalVariables('w')).toEqual({ count: 20 });
    });
  });
}
