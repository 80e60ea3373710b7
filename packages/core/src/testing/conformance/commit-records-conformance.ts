import { describe, expect, it } from 'vitest';
import type { ICheckpointStore } from '../../persistence/checkpoint-store.js';
import type { ToolCallDraft } from '../../persistence/unit-of-work.js';
import { committed, createThread, refused, saveOf, stored } from './commit-helpers.js';
import {
  AWKWARD_TEXT,
  CREATED_AT,
  LATER,
  interactionRecord,
  response,
  threadRecord,
  toolApproval,
  workflowDefinition,
} from './store-records.js';

const call = (overrides: Partial<ToolCallDraft> = {}): ToolCallDraft => toolApproval(overrides);
const started = (overrides: Partial<ToolCallDraft> = {}) => ({
  ...toolApproval(overrides),
  status: 'started' as const,
  updatedAt: LATER,
});

/** What `commit` does to interactions, tool calls' records, globals, remembered approvals and definitions. */
export function describeRecordCommits(store: () => ICheckpointStore): void {
  describe('commit: interactions', () => {
    it('opens a question (replacing one with its id), and takes the first answer only', async () => {
      await committed(store(), { interactions: [{ kind: 'open', interaction: interactionRecord({ nodeId: 'old' }) }] });
      await committed(store(), { interactions: [{ kind: 'open', interaction: interactionRecord() }] });
      expect(await store().getInteraction('interaction-1')).toEqual(interactionRecord());
      await committed(store(), {
        interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response('yes') }],
      });
      const answered = await store().getInteraction('interaction-1');
      expect(answered).toEqual({
        ...interactionRecord(),
        status: 'responded',
        response: response('yes'),
        updatedAt: response('yes').respondedAt,
      });
      expect(
        await refused(store(), {
          interactions: [{ kind: 'answer', interactionId: 'interaction-1', response: response('no', 'bob') }],
          globals: [{ kind: 'set', scope: 'workflow-a', name: 'written', value: 1 }],
        }),
      ).toEqual({ kind: 'interaction-not-pending', interaction: answered });
      expect(
        await refused(store(), {
          interactions: [{ kind: 'answer', interactionId: 'nobody', response: response('x') }],
        }),
      ).toEqual({ kind: 'interaction-not-found', interactionId: 'nobody' });
      expect(await store().getGlobalVariables('workflow-a')).toEqual({});
    });

    it('lists the questions of one moment in the order they were stored, a question asked again in its place', async () => {
      const ids = ['c', 'a', 'b'];
      await committed(store(), {
        interactions: ids.map((interactionId) => ({
          kind: 'open' as const,
          interaction: interactionRecord({ interactionId }),
        })),
      });
      await committed(store(), {
        interactions: [
          { kind: 'open', interaction: interactionRecord({ interactionId: 'a', nodeId: 'again' }) },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'z', createdAt: LATER }) },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'y' }) },
        ],
      });
      const order = ['c', 'a', 'b', 'y', 'z'];
      expect((await store().listInteractions({ threadId: 'thread-1' })).map((i) => i.interactionId)).toEqual(order);
      expect((await store().listInteractions({ status: 'pending' })).map((i) => i.interactionId)).toEqual(order);
      await createThread(store(), threadRecord());
      expect((await store().loadThread('thread-1'))?.interactions.map((i) => i.interactionId)).toEqual(order);
    });

    it('marks an answer processed, leaves other statuses alone, and answers and consumes in one unit', async () => {
      await committed(store(), {
        interactions: [
          { kind: 'open', interaction: interactionRecord() },
          { kind: 'consume', interactionId: 'interaction-1', at: LATER },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'interaction-2' }) },
          { kind: 'answer', interactionId: 'interaction-2', response: response('yes') },
          { kind: 'consume', interactionId: 'interaction-2', at: LATER },
          { kind: 'consume', interactionId: 'nobody', at: LATER },
        ],
      });
      expect((await store().getInteraction('interaction-1'))?.status).toBe('pending');
      expect(await store().getInteraction('interaction-2')).toMatchObject({ status: 'processed', updatedAt: LATER });
    });

    it('fails only pending questions, and says which', async () => {
      await committed(store(), {
        interactions: [
          { kind: 'open', interaction: interactionRecord() },
          { kind: 'open', interaction: interactionRecord({ interactionId: 'interaction-2' }) },
          { kind: 'answer', interactionId: 'interaction-2', response: response('yes') },
        ],
      });
      const fail = (interactionId: string) =>
        ({ kind: 'fail', interactionId, reason: 'timeout', message: `late ${AWKWARD_TEXT}`, at: LATER }) as const;
      const result = await committed(store(), {
        interactions: [fail('interaction-1'), fail('interaction-2'), fail('nobody')],
      });
      expect(result.failed).toEqual(['interaction-1']);
      expect(await store().getInteraction('interaction-1')).toMatchObject({
        status: 'failed',
        failureReason: 'timeout',
        failureMessage: `late ${AWKWARD_TEXT}`,
        updatedAt: LATER,
      });
      expect((await store().getInteraction('interaction-2'))?.status).toBe('responded');
      expect((await committed(store(), { interactions: [fail('interaction-1')] })).failed).toEqual([]);
      expect((await store().listInteractions({ status: 'failed' })).map((i) => i.interactionId)).toEqual([
        'interaction-1',
      ]);
    });
  });

  describe('commit: tool calls', () => {
    it('starts a new call, and refuses to start it again unless from an allowed status with the same arguments', async () => {
      await committed(store(), { toolCalls: [{ kind: 'start', call: call(), from: ['approved'], at: LATER }] });
      expect(await store().listToolExecutions({ threadId: 'thread-1' })).toEqual([started()]);
      const refusal = { kind: 'tool-call', threadId: 'thread-1', toolCallId: 'call-1', stored: started() };
      expect(
        await refused(store(), { toolCalls: [{ kind: 'start', call: call(), from: ['approved'], at: LATER }] }),
      ).toEqual(refusal);
      await committed(store(), {
        toolCalls: [
          { kind: 'status', threadId: 'thread-1', toolCallId: 'call-1', from: ['started'], to: 'unknown', at: LATER },
        ],
      });
      const other = call({ argumentsHash: 'f'.repeat(64), approvedBy: 'ada' });
      expect(
        await refused(store(), { toolCalls: [{ kind: 'start', call: other, from: ['unknown'], at: LATER }] }),
      ).toMatchObject({
        kind: 'tool-call',
        stored: { status: 'unknown' },
      });
      // From an allowed status, with the same arguments: started again, the stored record kept.
      await committed(store(), {
        toolCalls: [
          { kind: 'start', call: call({ approvedBy: 'someone else' }), from: ['approved', 'unknown'], at: CREATED_AT },
        ],
      });
      expect(await store().listToolExecutions()).toEqual([{ ...started(), updatedAt: CREATED_AT }]);
    });

    it('keeps the first outcome, and refuses an outcome or a move for a call it does not hold', async () => {
      const outcome = { status: 'SUCCESS' as const, content: `done ${AWKWARD_TEXT}` };
      await committed(store(), {
        toolCalls: [
          { kind: 'start', call: call(), from: [], at: LATER },
          { kind: 'finish', threadId: 'thread-1', toolCallId: 'call-1', outcome, at: LATER },
          {
            kind: 'finish',
            threadId: 'thread-1',
            toolCallId: 'call-1',
            outcome: { status: 'ERROR', content: 'late' },
            at: LATER,
          },
        ],
      });
      expect(await store().listToolExecutions({ status: 'finished' })).toEqual([
        { ...started(), status: 'finished', outcome },
      ]);
      expect(
        await refused(store(), {
          toolCalls: [{ kind: 'finish', threadId: 'thread-1', toolCallId: 'nobody', outcome, at: LATER }],
        }),
      ).toEqual({ kind: 'tool-call', threadId: 'thread-1', toolCallId: 'nobody' });
      expect(
        await refused(store(), {
          toolCalls: [
            { kind: 'status', threadId: 'thread-1', toolCallId: 'call-1', from: ['started'], to: 'unknown', at: LATER },
          ],
        }),
      ).toMatchObject({ kind: 'tool-call', stored: { status: 'finished' } });
      expect(
        await refused(store(), {
          toolCalls: [
            { kind: 'status', threadId: 'thread-1', toolCallId: 'nobody', from: ['started'], to: 'unknown', at: LATER },
          ],
        }),
      ).toEqual({ kind: 'tool-call', threadId: 'thread-1', toolCallId: 'nobody' });
    });
  });

  describe('commit: globals, remembered approvals, definitions', () => {
    it('sets, sets if absent, deletes, and keeps undefined as a value', async () => {
      await committed(store(), {
        globals: [
          { kind: 'set', scope: 'workflow-a', name: 'a', value: { text: AWKWARD_TEXT } },
          { kind: 'set-if-absent', scope: 'workflow-a', name: 'a', value: 'ignored' },
          { kind: 'set-if-absent', scope: 'workflow-a', name: 'b', value: [1, 2] },
          { kind: 'set', scope: 'workflow-a', name: 'c', value: undefined },
          { kind: 'set', scope: 'workflow-a', name: 'd', value: 4 },
          { kind: 'delete', scope: 'workflow-a', name: 'd' },
          { kind: 'set', scope: 'workflow-b', name: 'a', value: null },
        ],
      });
      const values = await store().getGlobalVariables('workflow-a');
      expect(values).toEqual({ a: { text: AWKWARD_TEXT }, b: [1, 2], c: undefined });
      expect(Object.keys(values).sort()).toEqual(['a', 'b', 'c']);
      expect(await store().getGlobalVariables('workflow-b')).toEqual({ a: null });
    });

    it('compares and sets by value, and refuses when the value changed, writing nothing', async () => {
      const cas = (name: string, expected: unknown, value: unknown) =>
        ({ kind: 'compare-and-set', scope: 'workflow-a', name, expected, value }) as const;
      await committed(store(), {
        globals: [
          cas('counter', undefined, 1),
          cas('counter', 1, 2),
          cas('object', undefined, { b: 1, a: [true, null, 'x'] }),
          cas('awkward', undefined, AWKWARD_TEXT),
        ],
      });
      // Compared as JSON values: key order does not matter; text no column holds as-is compares too.
      await committed(store(), {
        globals: [cas('object', { a: [true, null, 'x'], b: 1 }, 'changed'), cas('awkward', AWKWARD_TEXT, 'plain')],
      });
      expect(await store().getGlobalVariables('workflow-a')).toEqual({
        counter: 2,
        object: 'changed',
        awkward: 'plain',
      });
      const changed = { kind: 'global-changed', scope: 'workflow-a', name: 'counter' };
      expect(await refused(store(), { globals: [cas('counter', 1, 3)] })).toEqual(changed);
      expect(await refused(store(), { globals: [cas('counter', undefined, 3)] })).toEqual(changed);
      expect(await refused(store(), { globals: [cas('counter', '2', 3)] })).toEqual(changed);
      expect(
        await refused(store(), {
          globals: [{ kind: 'set', scope: 'workflow-a', name: 'object', value: 'lost' }, cas('counter', 0, 1)],
        }),
      ).toEqual(changed);
      expect(await refused(store(), { globals: [cas('missing', null, 1)] })).toEqual({ ...changed, name: 'missing' });
      expect(await store().getGlobalVariables('workflow-a')).toEqual({
        counter: 2,
        object: 'changed',
        awkward: 'plain',
      });
    });

    it('remembers approvals until they expire, the last expiry winning', async () => {
      const now = Date.parse(CREATED_AT);
      await committed(store(), {
        remember: [
          { key: 'k', expiresAt: now + 1_000 },
          { key: 'k', expiresAt: now + 10_000 },
        ],
      });
      expect(await store().isApprovalRemembered('k', now + 5_000)).toBe(true);
      expect(await store().isApprovalRemembered('k', now + 10_000)).toBe(false);
      expect(await store().isApprovalRemembered('other', now)).toBe(false);
    });

    it('keeps the first definition of a workflow version', async () => {
      const first = workflowDefinition();
      await committed(store(), { definitions: [first, workflowDefinition({ name: 'second' })] });
      await committed(store(), { definitions: [workflowDefinition({ name: 'third' })] });
      expect(await store().getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(first);
      expect(await store().getWorkflowDefinition('workflow-a', '2.0.0')).toBeUndefined();
    });

    it('commits an empty unit as nothing', async () => {
      expect(await store().commit({})).toEqual({ status: 'committed', audit: [], failed: [] });
    });

    it('writes all of a unit or, when its last change conflicts, none of it', async () => {
      const thread = await createThread(store(), threadRecord());
      const unit = {
        ...saveOf(thread, { status: 'waiting' as const, pendingInteractionIds: ['interaction-1'] }),
        interactions: [{ kind: 'open' as const, interaction: interactionRecord() }],
        toolCalls: [{ kind: 'start' as const, call: call(), from: [], at: LATER }],
        globals: [
          { kind: 'set' as const, scope: 'workflow-a', name: 'a', value: 1 },
          { kind: 'compare-and-set' as const, scope: 'workflow-a', name: 'b', expected: 'stale', value: 2 },
        ],
        definitions: [workflowDefinition()],
      };
      expect(await refused(store(), unit)).toEqual({ kind: 'global-changed', scope: 'workflow-a', name: 'b' });
      expect(await stored(store())).toEqual(thread);
      expect(await store().getInteraction('interaction-1')).toBeUndefined();
      expect(await store().listToolExecutions()).toEqual([]);
      expect(await store().getGlobalVariables('workflow-a')).toEqual({});
      expect(await store().getWorkflowDefinition('workflow-a', '1.0.0')).toBeUndefined();
      const { globals, ...rest } = unit;
      await committed(store(), { ...rest, globals: globals.slice(0, 1) });
      expect(await stored(store())).toMatchObject({ status: 'waiting', version: 2 });
      expect(await store().loadThread('thread-1')).toMatchObject({
        interactions: [interactionRecord()],
        toolCalls: [started()],
      });
    });
  });
}
