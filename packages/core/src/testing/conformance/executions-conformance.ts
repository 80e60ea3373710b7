import { describe, expect, it } from 'vitest';
import { InterlockError } from '../../errors/interlock-error.js';
import {
  AWKWARD_TEXT,
  LATER,
  ONE_MEGABYTE,
  UNICODE_TEXT,
  approvalRequest,
  approvedExecution,
  argumentsHashOf,
  errorCodeOf,
  interactionRecord,
  present,
  response,
  threadRecord,
  toolApproval,
  toolCallMessage,
  userMessage,
  workflowDefinition,
} from './store-records.js';
import type { ICheckpointStore, ToolExecutionRecord } from '../../persistence/checkpoint-store.js';

/** Tool executions, workflow definitions, round trips of awkward values, close: part of {@link describeStoreConformance}. */
export function describeExecutionsAndDefinitions(store: () => ICheckpointStore): void {
  describe('tool executions', () => {
    const hash = toolApproval().argumentsHash;
    const otherArguments = { path: 'README.md', content: 'something else' };
    const outcome: NonNullable<ToolExecutionRecord['outcome']> = {
      status: 'SUCCESS',
      output: { bytes: 5 },
      content: 'wrote 5 bytes',
    };

    it('stores an approval as approved and reads it back', async () => {
      await store().recordToolApproval(toolApproval());
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual(approvedExecution());
      expect(await store().getToolExecution('thread-1', 'no-such-call')).toBeUndefined();
      expect(await store().getToolExecution('no-such-thread', 'call-1')).toBeUndefined();
    });

    it('keys a call by thread and call id together', async () => {
      await store().recordToolApproval(toolApproval({ threadId: 't1' }));
      await store().recordToolApproval(
        toolApproval({ threadId: 't2', arguments: otherArguments, argumentsHash: argumentsHashOf(otherArguments) }),
      );
      expect((await store().getToolExecution('t1', 'call-1'))?.arguments).toEqual(toolApproval().arguments);
      expect((await store().getToolExecution('t2', 'call-1'))?.arguments).toEqual(otherArguments);
    });

    it('changes nothing when the same call is approved again with the same hash', async () => {
      await store().recordToolApproval(toolApproval());
      expect(await store().markToolStarted('thread-1', 'call-1', hash, ['approved'], LATER)).toBe(true);
      await store().recordToolApproval(toolApproval({ approvedBy: 'ada', createdAt: LATER }));
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual({
        ...approvedExecution(),
        status: 'started',
        updatedAt: LATER,
      });
    });

    it('refuses an approval of the same call with another hash with STORE_CONFLICT and keeps the first', async () => {
      await store().recordToolApproval(toolApproval());
      const other = toolApproval({
        arguments: otherArguments,
        argumentsHash: argumentsHashOf(otherArguments),
        approvedBy: 'grace',
      });
      expect(await errorCodeOf(store().recordToolApproval(other))).toBe('STORE_CONFLICT');
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual(approvedExecution());
    });

    it('of concurrent approvals with two hashes, keeps one hash and refuses only the others', async () => {
      const hashes = Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? 'hash-even' : 'hash-odd'));
      const results = await Promise.allSettled(
        hashes.map((argumentsHash) => store().recordToolApproval(toolApproval({ argumentsHash }))),
      );
      const stored = present(await store().getToolExecution('thread-1', 'call-1')).argumentsHash;
      for (const [index, result] of results.entries()) {
        if (hashes[index] === stored) expect(result.status).toBe('fulfilled');
        else
          expect(result.status === 'rejected' && InterlockError.is(result.reason) && result.reason.code).toBe(
            'STORE_CONFLICT',
          );
      }
    });

    it('starts a call only with its approved hash and from an allowed status', async () => {
      await store().recordToolApproval(toolApproval());
      expect(
        await store().markToolStarted('thread-1', 'call-1', argumentsHashOf(otherArguments), ['approved'], LATER),
      ).toBe(false);
      expect(await store().markToolStarted('thread-1', 'call-1', hash, ['unknown', 'finished'], LATER)).toBe(false);
      expect(await store().markToolStarted('thread-1', 'call-1', hash, [], LATER)).toBe(false);
      expect(await store().markToolStarted('thread-1', 'no-such-call', hash, ['approved'], LATER)).toBe(false);
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual(approvedExecution());
      expect(await store().markToolStarted('thread-1', 'call-1', hash, ['approved', 'unknown'], LATER)).toBe(true);
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual({
        ...approvedExecution(),
        status: 'started',
        updatedAt: LATER,
      });
      expect(await store().getToolExecution('thread-1', 'no-such-call')).toBeUndefined();
    });

    it('starts a call once: a second start returns false', async () => {
      await store().recordToolApproval(toolApproval());
      expect(await store().markToolStarted('thread-1', 'call-1', hash, ['approved'], LATER)).toBe(true);
      expect(await store().markToolStarted('thread-1', 'call-1', hash, ['approved'], '2026-01-02T03:04:50.000Z')).toBe(
        false,
      );
      expect((await store().getToolExecution('thread-1', 'call-1'))?.updatedAt).toBe(LATER);
    });

    it('starts exactly one of ten concurrent starts', async () => {
      await store().recordToolApproval(toolApproval());
      const started = await Promise.all(
        Array.from({ length: 10 }, () =>
          store().markToolStarted('thread-1', 'call-1', hash, ['approved', 'unknown'], LATER),
        ),
      );
      expect(started.filter(Boolean)).toHaveLength(1);
      expect((await store().getToolExecution('thread-1', 'call-1'))?.status).toBe('started');
    });

    it('stores the outcome of a finished call', async () => {
      await store().recordToolApproval(toolApproval());
      await store().markToolStarted('thread-1', 'call-1', hash, ['approved'], LATER);
      await store().markToolFinished('thread-1', 'call-1', outcome, '2026-01-02T03:04:50.000Z');
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual({
        ...approvedExecution(),
        status: 'finished',
        outcome,
        updatedAt: '2026-01-02T03:04:50.000Z',
      });
      expect(await store().markToolStarted('thread-1', 'call-1', hash, ['approved', 'unknown'], LATER)).toBe(false);
      await store().markToolFinished('thread-1', 'no-such-call', outcome, LATER);
      expect(await store().getToolExecution('thread-1', 'no-such-call')).toBeUndefined();
    });

    it('stores an outcome without output', async () => {
      await store().recordToolApproval(toolApproval());
      await store().markToolFinished(
        'thread-1',
        'call-1',
        { status: 'EXECUTION_REJECTED', content: 'the approver said no' },
        LATER,
      );
      const finished = present((await store().getToolExecution('thread-1', 'call-1'))?.outcome);
      expect(finished).toEqual({ status: 'EXECUTION_REJECTED', content: 'the approver said no' });
      expect(Object.keys(finished).sort()).toEqual(['content', 'status']);
    });

    it('moves a call to another status only from one of the given ones', async () => {
      await store().recordToolApproval(toolApproval());
      await store().markToolStarted('thread-1', 'call-1', hash, ['approved'], LATER);
      expect(
        await store().setToolExecutionStatus('thread-1', 'call-1', ['approved', 'finished'], 'unknown', LATER),
      ).toBe(false);
      expect(await store().setToolExecutionStatus('thread-1', 'call-1', [], 'unknown', LATER)).toBe(false);
      expect((await store().getToolExecution('thread-1', 'call-1'))?.status).toBe('started');
      expect(
        await store().setToolExecutionStatus('thread-1', 'call-1', ['started'], 'unknown', '2026-01-02T03:04:50.000Z'),
      ).toBe(true);
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual({
        ...approvedExecution(),
        status: 'unknown',
        updatedAt: '2026-01-02T03:04:50.000Z',
      });
      expect(await store().setToolExecutionStatus('thread-1', 'call-1', ['started'], 'unknown', LATER)).toBe(false);
      expect(await store().markToolStarted('thread-1', 'call-1', hash, ['unknown'], LATER)).toBe(true);
      expect(
        await store().setToolExecutionStatus('thread-1', 'no-such-call', ['approved', 'started'], 'unknown', LATER),
      ).toBe(false);
      expect(await store().getToolExecution('thread-1', 'no-such-call')).toBeUndefined();
    });

    it('lets exactly one of ten concurrent status changes win', async () => {
      await store().recordToolApproval(toolApproval());
      await store().markToolStarted('thread-1', 'call-1', hash, ['approved'], LATER);
      const moved = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          store().setToolExecutionStatus(
            'thread-1',
            'call-1',
            ['started'],
            index % 2 === 0 ? 'unknown' : 'finished',
            LATER,
          ),
        ),
      );
      expect(moved.filter(Boolean)).toHaveLength(1);
    });

    it('lists tool executions by thread, by status, by both, or all', async () => {
      await store().recordToolApproval(toolApproval({ threadId: 't1', toolCallId: 'c1' }));
      await store().recordToolApproval(toolApproval({ threadId: 't1', toolCallId: 'c2' }));
      await store().recordToolApproval(toolApproval({ threadId: 't2', toolCallId: 'c3' }));
      await store().markToolStarted('t1', 'c2', hash, ['approved'], LATER);
      await store().markToolStarted('t2', 'c3', hash, ['approved'], LATER);
      const ids = (records: ToolExecutionRecord[]) =>
        records.map((record) => `${record.threadId}/${record.toolCallId}`).sort();
      expect(ids(await store().listToolExecutions())).toEqual(['t1/c1', 't1/c2', 't2/c3']);
      expect(ids(await store().listToolExecutions({ threadId: 't1' }))).toEqual(['t1/c1', 't1/c2']);
      expect(ids(await store().listToolExecutions({ status: 'started' }))).toEqual(['t1/c2', 't2/c3']);
      expect(ids(await store().listToolExecutions({ threadId: 't1', status: 'started' }))).toEqual(['t1/c2']);
      expect(await store().listToolExecutions({ threadId: 't3' })).toEqual([]);
      expect(await store().listToolExecutions({ status: 'unknown' })).toEqual([]);
      expect(await store().listToolExecutions({ threadId: 't1', status: 'approved' })).toEqual([
        approvedExecution({ threadId: 't1', toolCallId: 'c1' }),
      ]);
    });

    it('hands out copies of tool executions', async () => {
      const input = toolApproval();
      await store().recordToolApproval(input);
      input.arguments['path'] = 'changed in the input';
      present(await store().getToolExecution('thread-1', 'call-1')).arguments['path'] = 'changed by a reader';
      present((await store().listToolExecutions())[0]).status = 'unknown';
      await store().markToolStarted('thread-1', 'call-1', hash, ['approved'], LATER);
      const finishedOutcome = structuredClone(outcome);
      await store().markToolFinished('thread-1', 'call-1', finishedOutcome, LATER);
      finishedOutcome.content = 'changed after finishing';
      present(present(await store().getToolExecution('thread-1', 'call-1')).outcome).content = 'changed by a reader';
      expect(await store().getToolExecution('thread-1', 'call-1')).toEqual({
        ...approvedExecution(),
        status: 'finished',
        outcome,
        updatedAt: LATER,
      });
    });
  });

  describe('workflow definitions', () => {
    it('saves a workflow definition and reads it back equal', async () => {
      await store().saveWorkflowDefinition(workflowDefinition());
      expect(await store().getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(workflowDefinition());
      expect(await store().getWorkflowDefinition('workflow-a', '2.0.0')).toBeUndefined();
      expect(await store().getWorkflowDefinition('no-such-workflow', '1.0.0')).toBeUndefined();
    });

    it('keeps the first definition saved for an id and version', async () => {
      await store().saveWorkflowDefinition(workflowDefinition({ name: 'First' }));
      await store().saveWorkflowDefinition(workflowDefinition({ name: 'Second', description: 'changed', edges: [] }));
      expect(await store().getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(workflowDefinition({ name: 'First' }));
    });

    it('keeps each version of a workflow, and each workflow, apart', async () => {
      await store().saveWorkflowDefinition(workflowDefinition({ name: 'One' }));
      await store().saveWorkflowDefinition(workflowDefinition({ version: '2.0.0', name: 'Two' }));
      await store().saveWorkflowDefinition(workflowDefinition({ id: 'workflow-b', name: 'B' }));
      expect((await store().getWorkflowDefinition('workflow-a', '1.0.0'))?.name).toBe('One');
      expect((await store().getWorkflowDefinition('workflow-a', '2.0.0'))?.name).toBe('Two');
      expect((await store().getWorkflowDefinition('workflow-b', '1.0.0'))?.name).toBe('B');
    });

    it('keeps exactly one of concurrent saves of the same id and version', async () => {
      const names = Array.from({ length: 10 }, (_, index) => `Writer ${index}`);
      await Promise.all(names.map((name) => store().saveWorkflowDefinition(workflowDefinition({ name }))));
      const stored = present(await store().getWorkflowDefinition('workflow-a', '1.0.0'));
      expect(names).toContain(stored.name);
      expect(stored).toEqual(workflowDefinition({ name: stored.name }));
    });

    it('hands out copies of workflow definitions', async () => {
      const input = workflowDefinition();
      await store().saveWorkflowDefinition(input);
      input.name = 'changed in the input';
      present(await store().getWorkflowDefinition('workflow-a', '1.0.0')).nodes.pop();
      expect(await store().getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(workflowDefinition());
    });
  });

  describe('round trips', () => {
    for (const [label, text] of [
      ['unicode (emoji, CJK, RTL, combining marks)', UNICODE_TEXT],
      ['NUL characters and unpaired surrogates', AWKWARD_TEXT],
      ['a 1 MB string', ONE_MEGABYTE],
    ] as const) {
      it(`keeps ${label} intact in every value`, async () => {
        const thread = threadRecord({
          input: { task: text, [text.slice(0, 40)]: 'key' },
          variables: { text },
          conversation: [userMessage(text), toolCallMessage('call-1', { content: text })],
          activeNode: { workflowId: 'workflow-a', nodeId: 'agent', state: { partial: text } },
          output: text,
        });
        const created = await store().createThread(thread);
        const saved = await store().saveThread({
          ...created,
          conversation: [...created.conversation, userMessage(text)],
        });
        expect(await store().getThread('thread-1')).toEqual(saved);

        const interaction = interactionRecord({
          request: approvalRequest('interaction-1', 'thread-1', { content: text }),
        });
        await store().createInteraction(interaction);
        await store().createInteraction(interactionRecord({ interactionId: 'interaction-2' }));
        await store().recordResponse('interaction-1', response({ approved: true, userInstruction: text }, text));
        await store().failInteraction('interaction-2', 'handler_error', text);
        expect(await store().getInteraction('interaction-1')).toMatchObject({
          request: interaction.request,
          response: response({ approved: true, userInstruction: text }, text),
        });
        expect((await store().getInteraction('interaction-2'))?.failureMessage).toBe(text);

        await store().setGlobalVariables('workflow-a', { text, nested: { [text.slice(0, 40)]: [text] } });
        expect(await store().getGlobalVariables('workflow-a')).toEqual({
          text,
          nested: { [text.slice(0, 40)]: [text] },
        });

        const toolArguments = { content: text, [text.slice(0, 40)]: [text] };
        const approval = toolApproval({ arguments: toolArguments, argumentsHash: argumentsHashOf(toolArguments) });
        const outcome: NonNullable<ToolExecutionRecord['outcome']> = {
          status: 'SUCCESS',
          output: { echoed: text },
          content: text,
        };
        await store().recordToolApproval(approval);
        await store().markToolFinished('thread-1', 'call-1', outcome, LATER);
        expect(await store().getToolExecution('thread-1', 'call-1')).toEqual({
          ...approval,
          status: 'finished',
          outcome,
          updatedAt: LATER,
        });

        const definition = workflowDefinition({ description: text, name: text });
        await store().saveWorkflowDefinition(definition);
        expect(await store().getWorkflowDefinition('workflow-a', '1.0.0')).toEqual(definition);
      });
    }

    it('keeps unicode in ids, names and statuses', async () => {
      const id = `thread ${UNICODE_TEXT}`;
      await store().createThread(
        threadRecord({ threadId: id, workflowId: `workflow ${UNICODE_TEXT}`, channel: UNICODE_TEXT }),
      );
      expect((await store().getThread(id))?.channel).toBe(UNICODE_TEXT);
      await store().createInteraction(
        interactionRecord({ interactionId: `interaction ${UNICODE_TEXT}`, threadId: id }),
      );
      expect(await store().listInteractions({ threadId: id })).toHaveLength(1);
      await store().setGlobalVariables(`workflow ${UNICODE_TEXT}`, { [UNICODE_TEXT]: 1 });
      expect(await store().getGlobalVariables(`workflow ${UNICODE_TEXT}`)).toEqual({ [UNICODE_TEXT]: 1 });
      await store().recordToolApproval(
        toolApproval({
          threadId: id,
          toolCallId: `call ${UNICODE_TEXT}`,
          toolName: UNICODE_TEXT,
          approvedBy: UNICODE_TEXT,
        }),
      );
      expect(
        await store().markToolStarted(id, `call ${UNICODE_TEXT}`, toolApproval().argumentsHash, ['approved'], LATER),
      ).toBe(true);
      expect(await store().listToolExecutions({ threadId: id, status: 'started' })).toMatchObject([
        { toolName: UNICODE_TEXT, approvedBy: UNICODE_TEXT },
      ]);
      await store().saveWorkflowDefinition(workflowDefinition({ version: UNICODE_TEXT }));
      expect((await store().getWorkflowDefinition('workflow-a', UNICODE_TEXT))?.version).toBe(UNICODE_TEXT);
    });
  });

  describe('close', () => {
    it('closes, and closing again is harmless', async () => {
      await store().createThread(threadRecord());
      await store().close();
      await expect(store().close()).resolves.toBeUndefined();
    });
  });
}
