import { describe, expect, it } from 'vitest';
import type { ICheckpointStore, ToolExecutionRecord } from '../../persistence/checkpoint-store.js';
import {
  argumentsHashOf,
  AWKWARD_TEXT,
  committed,
  CREATED_AT,
  createThread,
  interactionRecord,
  LATER,
  ONE_MEGABYTE,
  present,
  refused,
  save,
  threadRecord,
  toolApproval,
  UNICODE_TEXT,
  userMessage,
  workflowDefinition,
} from './store-records.js';

const start = (
  overrides: Parameters<typeof toolApproval>[0] = {},
  from: ToolExecutionRecord['status'][] = ['approved'],
) => ({
  toolCalls: [{ kind: 'start' as const, call: toolApproval(overrides), from, at: CREATED_AT }],
});

/** Tries to change a value a store handed out; either it refuses, or the store keeps what it had. */
function tryToChange(value: Record<string, unknown>, key: string): void {
  try {
    value[key] = 'changed by a caller';
  } catch {
    // A store may hand out frozen values: then changing one throws.
  }
}

/** Tool calls' write-ahead records, workflow definitions and stored text: part of {@link describeStoreConformance}. */
export function describeExecutionsAndDefinitions(store: () => ICheckpointStore): void {
  describe('tool calls (the write-ahead record, F40)', () => {
    it('starts a new call, stored started with its exact arguments, by thread and call id', async () => {
      await committed(store(), start());
      await committed(store(), start({ threadId: 'thread-2' }));
      expect(await store().listToolExecutions({ threadId: 'thread-1' })).toEqual([
        { ...toolApproval(), status: 'started', updatedAt: CREATED_AT },
      ]);
      expect(await store().listToolExecutions()).toHaveLength(2);
    });

    it('starts a stored call again only with the same arguments and from an allowed status', async () => {
      await committed(store(), start());
      const other = { content: 'other' };
      expect(
        await refused(store(), start({ arguments: other, argumentsHash: argumentsHashOf(other) }, ['started'])),
      ).toMatchObject({
        kind: 'tool-call',
        threadId: 'thread-1',
        toolCallId: 'call-1',
        stored: { status: 'started', argumentsHash: toolApproval().argumentsHash },
      });
      // A non-idempotent call found started is not started again…
      await refused(store(), start());
      // …an idempotent one may be.
      await committed(store(), start({}, ['approved', 'started']));
    });

    it('starts exactly one of ten concurrent starts of one call', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, () => store().commit(start())));
      expect(results.filter((result) => result.status === 'committed')).toHaveLength(1);
    });

    it("stores a call's outcome once: a late outcome never overwrites it", async () => {
      await committed(store(), start());
      const outcome = {
        status: 'SUCCESS' as const,
        output: { written: UNICODE_TEXT },
        content: `[SUCCESS] ${AWKWARD_TEXT}`,
      };
      await committed(store(), {
        toolCalls: [{ kind: 'finish', threadId: 'thread-1', toolCallId: 'call-1', outcome, at: LATER }],
      });
      await committed(store(), {
        toolCalls: [
          {
            kind: 'finish',
            threadId: 'thread-1',
            toolCallId: 'call-1',
            outcome: { status: 'ERROR', content: '[ERROR] late' },
            at: LATER,
          },
        ],
      });
      expect(await store().listToolExecutions({ status: 'finished' })).toEqual([
        { ...toolApproval(), status: 'finished', outcome, updatedAt: LATER },
      ]);
      expect(
        await refused(store(), {
          toolCalls: [{ kind: 'finish', threadId: 'thread-1', toolCallId: 'nobody', outcome, at: LATER }],
        }),
      ).toMatchObject({ kind: 'tool-call', toolCallId: 'nobody' });
    });

    it('moves a call to another status only from one of the given ones', async () => {
      await committed(store(), start());
      const move = (from: ToolExecutionRecord['status'][], to: ToolExecutionRecord['status']) => ({
        toolCalls: [{ kind: 'status' as const, threadId: 'thread-1', toolCallId: 'call-1', from, to, at: LATER }],
      });
      await refused(store(), move(['approved'], 'unknown'));
      await committed(store(), move(['started'], 'unknown'));
      await committed(store(), move(['unknown'], 'approved'));
      expect(await store().listToolExecutions({ threadId: 'thread-1', status: 'approved' })).toHaveLength(1);
      // An approved call starts again with its hash.
      await committed(store(), start());
    });

    it('hands out tool calls a caller cannot change the stored ones through', async () => {
      await committed(store(), start());
      const [first] = await store().listToolExecutions();
      tryToChange(present(first) as unknown as Record<string, unknown>, 'status');
      expect(await store().listToolExecutions()).toEqual([
        { ...toolApproval(), status: 'started', updatedAt: CREATED_AT },
      ]);
    });
  });

  describe('workflow definitions', () => {
    it('keeps a workflow definition and reads it back equal; the first kept for an id and version stays', async () => {
      await committed(store(), { definitions: [workflowDefinition()] });
      await committed(store(), { definitions: [workflowDefinition({ name: 'edited' })] });
      expect(await store().getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(workflowDefinition());
      expect(await store().getWorkflowDefinition('workflow-a', '2.0.0')).toBeUndefined();
      await committed(store(), { definitions: [workflowDefinition({ version: '2.0.0', name: 'two' })] });
      expect((await store().getWorkflowDefinition('workflow-a', '2.0.0'))?.name).toBe('two');
      expect((await store().getWorkflowDefinition('workflow-a', '1.0.0'))?.name).toBe('Test workflow');
    });

    it('keeps exactly one of concurrent keeps of the same id and version', async () => {
      await Promise.all(
        ['one', 'two', 'three'].map((name) => store().commit({ definitions: [workflowDefinition({ name })] })),
      );
      expect(['one', 'two', 'three']).toContain((await store().getWorkflowDefinition('workflow-a', '1.0.0'))?.name);
    });
  });

  describe('remembered approvals (F30)', () => {
    it('remembers a key until it expires, and longer when remembered again', async () => {
      await committed(store(), { remember: [{ key: 'cli:chat:write_file:abc', expiresAt: 2_000 }] });
      expect(await store().isApprovalRemembered('cli:chat:write_file:abc', 1_999)).toBe(true);
      expect(await store().isApprovalRemembered('cli:chat:write_file:abc', 2_000)).toBe(false);
      expect(await store().isApprovalRemembered('another key', 0)).toBe(false);
      await committed(store(), { remember: [{ key: 'cli:chat:write_file:abc', expiresAt: 5_000 }] });
      expect(await store().isApprovalRemembered('cli:chat:write_file:abc', 4_000)).toBe(true);
    });
  });

  describe('stored text and sizes', () => {
    for (const [label, text] of [
      ['unicode', UNICODE_TEXT],
      ['NUL and unpaired surrogates', AWKWARD_TEXT],
      ['a megabyte', ONE_MEGABYTE],
    ] as const) {
      it(`keeps ${label} intact in every value`, async () => {
        const thread = threadRecord({ variables: { text }, conversation: [userMessage(text)], input: { text } });
        await committed(store(), { thread: { kind: 'create', thread } });
        await committed(store(), {
          interactions: [
            {
              kind: 'open',
              interaction: interactionRecord({ request: { ...interactionRecord().request, prompt: text } }),
            },
          ],
          globals: [{ kind: 'set', scope: 'workflow-a', name: 'text', value: text }],
          toolCalls: [
            { kind: 'start', call: toolApproval({ arguments: { text } }), from: ['approved'], at: CREATED_AT },
          ],
        });
        expect(await store().getThread('thread-1')).toEqual(thread);
        expect((await store().getInteraction('interaction-1'))?.request.prompt).toBe(text);
        expect(await store().getGlobalVariables('workflow-a')).toEqual({ text });
        expect((await store().listToolExecutions())[0]?.arguments).toEqual({ text });
      });
    }

    it('hands out threads a caller cannot change the stored one through', async () => {
      const thread = await createThread(store(), threadRecord({ conversation: [userMessage('one')] }));
      tryToChange(thread as unknown as Record<string, unknown>, 'status');
      const again = present(await store().getThread('thread-1'));
      expect(again.status).toBe('running');
      await committed(store(), { thread: save(again, { steps: 1 }) });
    });
  });
}
