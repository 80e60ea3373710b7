import { afterEach, describe, expect, it, vi } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { CREATED_AT, interactionRecord } from '../testing/conformance/store-records.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { definitionHash } from '../workflow/definition-hash.js';
import { DeadlineTimers } from './deadline-timers.js';
import { newThreadRecord } from './new-thread.js';

const NOW = Date.parse(CREATED_AT);
const lease = { owner: 'process-a', until: new Date(NOW + 30_000).toISOString() };

describe('newThreadRecord (the record start() writes)', () => {
  const workflows = new WorkflowRegistry();
  const workflow = workflows.register(
    linearWorkflow([askNode()], {
      id: 'intake',
      variables: [
        { name: 'task', scope: 'thread', default: 'none' },
        { name: 'draft', scope: 'subgraph', default: '' },
      ],
    }),
  );

  it('puts input into the scope each name is declared in, at the START node, bound to the definition', () => {
    const thread = newThreadRecord(
      workflow,
      { input: { task: 'refund', draft: 'hello' }, threadId: 't-1', channel: 'web' },
      { epoch: 4, lease },
      NOW,
    );
    expect(thread.variables).toMatchObject({ task: 'refund' });
    expect(thread.frames).toEqual([
      {
        workflowId: 'intake',
        workflowVersion: '1',
        definitionHash: definitionHash(workflow),
        cursor: 'start',
        variables: { draft: 'hello' },
        loops: [],
      },
    ]);
    expect(thread).toMatchObject({
      threadId: 't-1',
      channel: 'web',
      status: 'running',
      epoch: 4,
      lease,
      version: 0,
      createdAt: CREATED_AT,
    });
    expect(thread.session).toEqual({ sessionId: 't-1' });
  });

  it('refuses input that names no declared thread or subgraph variable (VARIABLE_UNDECLARED)', () => {
    const start = () => newThreadRecord(workflow, { input: { amount: 5 } }, { epoch: 1, lease }, NOW);
    expect(start).toThrowError(
      expect.objectContaining({ code: 'VARIABLE_UNDECLARED', message: expect.stringContaining('"amount"') }),
    );
  });

  it('gives every thread its own id and its own copy of the approval settings', () => {
    const first = newThreadRecord(workflow, {}, { epoch: 1, lease }, NOW);
    const second = newThreadRecord(workflow, {}, { epoch: 1, lease }, NOW);
    expect(first.threadId).not.toBe(second.threadId);
    first.toolApproval.autoApprovedTools = ['rm'];
    expect(workflow.config.toolApproval.autoApprovedTools ?? []).not.toContain('rm');
  });
});

/** A clock a test moves by hand. */

describe('DeadlineTimers (the deadlines of waits this process ran)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const at = (ms: number): InteractionRecord =>
    interactionRecord({ interactionId: `i-${ms}`, deadline: new Date(Date.now() + ms).toISOString() });

  it('calls onDue once per interaction when its deadline passes, and forgets it', async () => {
    vi.useFakeTimers({ now: NOW });
    const due: string[] = [];
    const timers = new DeadlineTimers({ now: () => Date.now() }, (interaction) => due.push(interaction.interactionId));
    const soon = at(20);
    timers.arm(soon);
    timers.arm(soon);
    timers.arm(interactionRecord({ interactionId: 'no-deadline', deadline: null }));
    expect(timers.size).toBe(1);
    await vi.advanceTimersByTimeAsync(19);
    expect(due).toEqual([]);
    await vi.advanceTimersByTimeAsync(41);
    expect(due).toEqual([soon.interactionId]);
    expect(timers.size).toBe(0);
  });

  it('never fires a disarmed deadline', async () => {
    vi.useFakeTimers({ now: NOW });
    const due: string[] = [];
    const timers = new DeadlineTimers({ now: () => Date.now() }, (interaction) => due.push(interaction.interactionId));
    const first = at(20);
    timers.arm(first);
    timers.arm(at(25));
    timers.disarm(first.interactionId);
    expect(timers.size).toBe(1);
    timers.disarmAll();
    await vi.advanceTimersByTimeAsync(60);
    expect(due).toEqual([]);
  });
});
