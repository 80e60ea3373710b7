import { describe, expect, it } from 'vitest';
import { InterlockError } from '../../errors/interlock-error.js';
import {
  errorCodeOf,
  interactionRecord,
  present,
  response,
  threadRecord,
  toolCallMessage,
  userMessage,
} from './store-records.js';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';

/** Threads, interactions and global variables: part of {@link describeStoreConformance}. */
export function describeThreadsAndInteractions(store: () => ICheckpointStore): void {
  describe('threads', () => {
    it('creates a thread at version 1 and reads it back', async () => {
      const created = await store().createThread(threadRecord({ version: 7 }));
      expect(created.version).toBe(1);
      expect(await store().getThread('thread-1')).toEqual(threadRecord({ version: 1 }));
      expect(await store().getThread('no-such-thread')).toBeUndefined();
    });

    it('refuses a second thread with the same id and keeps the first', async () => {
      await store().createThread(threadRecord({ channel: 'first' }));
      expect(await errorCodeOf(store().createThread(threadRecord({ channel: 'second' })))).toBe('STORE_CONFLICT');
      expect((await store().getThread('thread-1'))?.channel).toBe('first');
    });

    it('lists threads, all of them or those with a status', async () => {
      await store().createThread(threadRecord({ threadId: 'a', status: 'running' }));
      await store().createThread(threadRecord({ threadId: 'b', status: 'waiting' }));
      await store().createThread(threadRecord({ threadId: 'c', status: 'waiting' }));
      const ids = (threads: { threadId: string }[]) => threads.map((thread) => thread.threadId).sort();
      expect(ids(await store().listThreads())).toEqual(['a', 'b', 'c']);
      expect(ids(await store().listThreads({ status: 'waiting' }))).toEqual(['b', 'c']);
      expect(await store().listThreads({ status: 'completed' })).toEqual([]);
      expect((await store().listThreads({ status: 'running' }))[0]).toEqual(threadRecord({ threadId: 'a' }));
    });

    it('saves every field, increments the version and stamps updatedAt', async () => {
      const created = await store().createThread(threadRecord());
      const changed = {
        ...created,
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
      };
      const saved = await store().saveThread(changed);
      expect(saved).toEqual({ ...changed, version: 2, updatedAt: saved.updatedAt });
      expect(saved.updatedAt).not.toBe(created.updatedAt);
      expect(await store().getThread('thread-1')).toEqual(saved);
      const again = await store().saveThread({ ...saved, steps: 5 });
      expect(again.version).toBe(3);
      expect((await store().getThread('thread-1'))?.steps).toBe(5);
    });

    it('refuses a stale save with STORE_CONFLICT and changes nothing', async () => {
      const created = await store().createThread(threadRecord({ conversation: [userMessage('one')] }));
      const saved = await store().saveThread({ ...created, steps: 1 });
      const stale = {
        ...created,
        steps: 99,
        status: 'failed' as const,
        conversation: [userMessage('one'), userMessage('stale')],
      };
      expect(await errorCodeOf(store().saveThread(stale))).toBe('STORE_CONFLICT');
      expect(await store().getThread('thread-1')).toEqual(saved);
    });

    it('refuses to save a thread that was never created', async () => {
      expect(await errorCodeOf(store().saveThread(threadRecord({ threadId: 'ghost' })))).toBe('THREAD_NOT_FOUND');
      expect(await store().getThread('ghost')).toBeUndefined();
    });

    it('lets exactly one of two concurrent saves of the same version win', async () => {
      const created = await store().createThread(threadRecord());
      const results = await Promise.allSettled([
        store().saveThread({ ...created, steps: 1, conversation: [userMessage('from the first writer')] }),
        store().saveThread({ ...created, steps: 2, conversation: [userMessage('from the second writer')] }),
      ]);
      const winners = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      const losers = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
      expect(winners).toHaveLength(1);
      expect(losers.map((error: unknown) => InterlockError.is(error) && error.code)).toEqual(['STORE_CONFLICT']);
      expect(await store().getThread('thread-1')).toEqual(winners[0]);
    });

    it('appends the conversation across saves and reads it back in order', async () => {
      let thread = await store().createThread(threadRecord({ conversation: [userMessage('m0')] }));
      for (let round = 1; round <= 5; round += 1) {
        const added = Array.from({ length: round }, (_, index) => userMessage(`m${round}.${index}`));
        thread = await store().saveThread({ ...thread, conversation: [...thread.conversation, ...added] });
      }
      thread = await store().saveThread(thread);
      const many = Array.from({ length: 1_200 }, (_, index) => userMessage(`bulk ${index}`));
      thread = await store().saveThread({ ...thread, conversation: [...thread.conversation, ...many] });
      const stored = await store().getThread('thread-1');
      expect(stored?.conversation).toEqual(thread.conversation);
      expect(stored?.conversation).toHaveLength(1 + 15 + 1_200);
      expect(stored?.conversation[16]?.content).toBe('bulk 0');
    });

    it('stores an edit of an earlier message and a shortened conversation', async () => {
      const conversation = [
        userMessage('write it'),
        toolCallMessage('call-1', { path: 'a.txt' }),
        userMessage('after'),
      ];
      let thread = await store().createThread(threadRecord({ conversation }));
      const edited = structuredClone(thread.conversation);
      edited[1] = toolCallMessage('call-1', { path: 'b.txt', note: 'edited by the approver' });
      thread = await store().saveThread({ ...thread, conversation: [...edited, userMessage('new')] });
      expect((await store().getThread('thread-1'))?.conversation).toEqual([...edited, userMessage('new')]);
      thread = await store().saveThread({ ...thread, conversation: edited.slice(0, 1) });
      expect((await store().getThread('thread-1'))?.conversation).toEqual(edited.slice(0, 1));
    });

    it('hands out copies: changing a record in the caller never changes the store()', async () => {
      const input = threadRecord({ conversation: [userMessage('original')] });
      const created = await store().createThread(input);
      input.variables['count'] = 100;
      input.conversation.push(userMessage('pushed into the input'));
      present(created.frames[0]).cursor = 'elsewhere';
      const read = await store().getThread('thread-1');
      present(present(read).conversation[0]).content = 'changed by a reader';
      present(read).session.sessionId = 'hijacked';
      present((await store().listThreads())[0]).variables['count'] = 200;
      const saveInput = { ...threadRecord({ conversation: [userMessage('original')] }), steps: 1 };
      const saved = await store().saveThread(saveInput);
      present(saveInput.conversation[0]).content = 'changed after save';
      saved.variables['count'] = 300;
      expect(await store().getThread('thread-1')).toEqual({
        ...threadRecord({ conversation: [userMessage('original')] }),
        steps: 1,
        version: 2,
        updatedAt: saved.updatedAt,
      });
    });
  });

  describe('interactions', () => {
    it('creates an interaction and reads it back', async () => {
      await store().createInteraction(interactionRecord());
      expect(await store().getInteraction('interaction-1')).toEqual(interactionRecord());
      expect(await store().getInteraction('no-such-interaction')).toBeUndefined();
    });

    it('replaces an interaction created again with the same id', async () => {
      await store().createInteraction(interactionRecord({ nodeId: 'first' }));
      await store().createInteraction(interactionRecord({ nodeId: 'second' }));
      expect((await store().getInteraction('interaction-1'))?.nodeId).toBe('second');
      expect(await store().listInteractions()).toHaveLength(1);
    });

    it('lists interactions by status, by thread, by both, or all', async () => {
      await store().createInteraction(interactionRecord({ interactionId: 'i1', threadId: 't1' }));
      await store().createInteraction(interactionRecord({ interactionId: 'i2', threadId: 't1' }));
      await store().createInteraction(interactionRecord({ interactionId: 'i3', threadId: 't2' }));
      await store().recordResponse('i2', response({ approved: true }));
      const ids = (records: { interactionId: string }[]) => records.map((record) => record.interactionId).sort();
      expect(ids(await store().listInteractions())).toEqual(['i1', 'i2', 'i3']);
      expect(ids(await store().listInteractions({ status: 'pending' }))).toEqual(['i1', 'i3']);
      expect(ids(await store().listInteractions({ threadId: 't1' }))).toEqual(['i1', 'i2']);
      expect(ids(await store().listInteractions({ threadId: 't1', status: 'pending' }))).toEqual(['i1']);
      expect(await store().listInteractions({ threadId: 't3' })).toEqual([]);
      expect(await store().listInteractions({ status: 'pending', threadId: 't2' })).toEqual([
        interactionRecord({ interactionId: 'i3', threadId: 't2' }),
      ]);
    });

    it('records the first answer and refuses a second one, keeping the first', async () => {
      await store().createInteraction(interactionRecord());
      const first = await store().recordResponse('interaction-1', response({ approved: true }, 'ada'));
      expect(first).toEqual({
        status: 'recorded',
        interaction: {
          ...interactionRecord(),
          status: 'responded',
          response: response({ approved: true }, 'ada'),
          updatedAt: '2026-01-02T03:04:30.000Z',
        },
      });
      const second = await store().recordResponse('interaction-1', response({ approved: false }, 'grace'));
      expect(second).toEqual({
        status: 'not_pending',
        interaction: first.status === 'recorded' ? first.interaction : undefined,
      });
      expect((await store().getInteraction('interaction-1'))?.response?.responder).toBe('ada');
      expect(await store().recordResponse('no-such-interaction', response(true))).toEqual({ status: 'not_found' });
    });

    it('records exactly one of ten concurrent answers', async () => {
      await store().createInteraction(interactionRecord());
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          store().recordResponse('interaction-1', response({ approved: true }, `approver-${index}`)),
        ),
      );
      const recorded = results.filter((result) => result.status === 'recorded');
      expect(recorded).toHaveLength(1);
      expect(results.filter((result) => result.status === 'not_pending')).toHaveLength(9);
      const winner = recorded[0]?.status === 'recorded' ? recorded[0].interaction.response?.responder : undefined;
      expect((await store().getInteraction('interaction-1'))?.response?.responder).toBe(winner);
    });

    it('fails a pending interaction once, and never one that was answered', async () => {
      await store().createInteraction(interactionRecord({ interactionId: 'i1' }));
      await store().createInteraction(interactionRecord({ interactionId: 'i2' }));
      expect(await store().failInteraction('i1', 'timeout', 'nobody answered before the deadline')).toBe(true);
      const failed = await store().getInteraction('i1');
      expect(failed).toMatchObject({
        status: 'failed',
        failureReason: 'timeout',
        failureMessage: 'nobody answered before the deadline',
      });
      expect(failed?.response).toBeUndefined();
      expect(await store().failInteraction('i1', 'cancelled', 'again')).toBe(false);
      expect((await store().getInteraction('i1'))?.failureReason).toBe('timeout');
      expect((await store().recordResponse('i1', response(true))).status).toBe('not_pending');
      await store().recordResponse('i2', response(true));
      expect(await store().failInteraction('i2', 'timeout', 'too late')).toBe(false);
      expect((await store().getInteraction('i2'))?.status).toBe('responded');
      expect(await store().failInteraction('no-such-interaction', 'timeout', 'none')).toBe(false);
    });

    it('lets exactly one of a concurrent answer and failure win', async () => {
      const ids = Array.from({ length: 8 }, (_, index) => `race-${index}`);
      for (const interactionId of ids) await store().createInteraction(interactionRecord({ interactionId }));
      for (const [index, interactionId] of ids.entries()) {
        const answer = () => store().recordResponse(interactionId, response({ approved: true }));
        const failure = () => store().failInteraction(interactionId, 'timeout', 'the deadline passed');
        const [recorded, failed] =
          index % 2 === 0
            ? await Promise.all([answer(), failure()])
            : await Promise.all([failure(), answer()]).then(
                ([failedFirst, recordedSecond]) => [recordedSecond, failedFirst] as const,
              );
        expect([recorded.status === 'recorded', failed]).toContain(true);
        expect(recorded.status === 'recorded' && failed).toBe(false);
        const stored = await store().getInteraction(interactionId);
        expect(stored?.status).toBe(failed ? 'failed' : 'responded');
      }
    });

    it('marks the answers a thread save consumed processed with that save, and none when the save is refused', async () => {
      const created = await store().createThread(
        threadRecord({ status: 'waiting', pendingInteractionIds: ['a', 'b'] }),
      );
      for (const interactionId of ['a', 'b', 'c']) {
        await store().createInteraction(interactionRecord({ interactionId }));
        await store().recordResponse(interactionId, response(true));
      }
      await store().createInteraction(interactionRecord({ interactionId: 'still-pending' }));
      await store().createInteraction(interactionRecord({ interactionId: 'timed-out' }));
      await store().failInteraction('timed-out', 'timeout', 'nobody answered');
      const statuses = async () =>
        Promise.all(
          ['a', 'b', 'c', 'still-pending', 'timed-out'].map(async (id) => (await store().getInteraction(id))?.status),
        );

      const stale = { ...created, version: created.version + 5 };
      expect(await errorCodeOf(store().saveThread(stale, ['a', 'b']))).toBe('STORE_CONFLICT');
      expect(await statuses()).toEqual(['responded', 'responded', 'responded', 'pending', 'failed']);

      const saved = await store().saveThread({ ...created, status: 'running', pendingInteractionIds: [] }, [
        'a',
        'b',
        'still-pending',
        'timed-out',
        'no-such-interaction',
      ]);
      expect(saved.version).toBe(created.version + 1);
      // Only answered ones: a pending or failed interaction is not processed by a save that names it.
      expect(await statuses()).toEqual(['processed', 'processed', 'responded', 'pending', 'failed']);
      expect(await store().getInteraction('a')).toMatchObject({ response: response(true) });
      expect((await store().recordResponse('a', response(false))).status).toBe('not_pending');
    });

    it('hands out copies of interactions', async () => {
      const input = interactionRecord();
      await store().createInteraction(input);
      input.request.metadata['changed'] = true;
      const read = await store().getInteraction('interaction-1');
      present(read).request.prompt = 'changed by a reader';
      const answer = response({ approved: true });
      const result = await store().recordResponse('interaction-1', answer);
      answer.responder = 'changed after recording';
      if (result.status === 'recorded') result.interaction.nodeId = 'changed';
      present((await store().listInteractions())[0]).deadline = null;
      expect(await store().getInteraction('interaction-1')).toEqual({
        ...interactionRecord(),
        status: 'responded',
        response: response({ approved: true }),
        updatedAt: '2026-01-02T03:04:30.000Z',
      });
    });
  });

  describe('global variables', () => {
    it('reads nothing for a workflow without globals', async () => {
      expect(await store().getGlobalVariables('workflow-a')).toEqual({});
    });

    it('sets and overwrites globals per workflow', async () => {
      await store().setGlobalVariables('workflow-a', { counter: 1, config: { retries: [1, 2] }, nothing: null });
      await store().setGlobalVariables('workflow-a', { counter: 2 });
      await store().setGlobalVariables('workflow-b', { counter: 'b' });
      await store().setGlobalVariables('workflow-b', {});
      expect(await store().getGlobalVariables('workflow-a')).toEqual({
        counter: 2,
        config: { retries: [1, 2] },
        nothing: null,
      });
      expect(await store().getGlobalVariables('workflow-b')).toEqual({ counter: 'b' });
    });

    it('with onlyIfAbsent, creates the missing globals and keeps the existing ones', async () => {
      await store().setGlobalVariables('workflow-a', { counter: 5 });
      await store().setGlobalVariables('workflow-a', { counter: 0, label: 'default' }, { onlyIfAbsent: true });
      expect(await store().getGlobalVariables('workflow-a')).toEqual({ counter: 5, label: 'default' });
    });

    it('keeps exactly one of concurrent onlyIfAbsent writes', async () => {
      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          store().setGlobalVariables('workflow-a', { seed: index }, { onlyIfAbsent: true }),
        ),
      );
      const { seed } = await store().getGlobalVariables('workflow-a');
      expect(typeof seed).toBe('number');
      await store().setGlobalVariables('workflow-a', { seed: 'late' }, { onlyIfAbsent: true });
      expect(await store().getGlobalVariables('workflow-a')).toEqual({ seed });
    });

    it('hands out copies of globals', async () => {
      const value = { list: [1, 2] };
      await store().setGlobalVariables('workflow-a', { value });
      value.list.push(3);
      const read = await store().getGlobalVariables('workflow-a');
      read['value'] = 'changed by a reader';
      expect(await store().getGlobalVariables('workflow-a')).toEqual({ value: { list: [1, 2] } });
    });
  });
}
