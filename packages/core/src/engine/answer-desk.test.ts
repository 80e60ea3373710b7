import { describe, expect, it } from 'vitest';
import type { ApprovalQuorum } from '@interlock/sdk-types';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { InterlockError } from '../errors/interlock-error.js';
import { ResponseInterpreter } from '../interaction/response-interpreter.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import { resolveApprovalOptions } from '../policy/approval-options.js';
import { ApprovalPolicy } from '../policy/approval-policy.js';
import {
  CREATED_AT,
  committed,
  createThread,
  interactionRecord,
  present,
  save,
  threadRecord,
} from '../testing/conformance/store-records.js';
import { safeShell } from '../tools/__fixtures__/turn-parts.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { JobPlanner, type ContinueIn } from '../workers/job-planner.js';
import { definitionHash } from '../workflow/definition-hash.js';
import { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { AnswerDesk, SUPERSEDED } from './answer-desk.js';
import type { Clock } from './clock.js';
import type { EmittedEvent } from './node-executor.js';
import { ThreadDefinitions } from './thread-definitions.js';

/* The answer desk on a real store: one read, one plan, one commit per answer; read and planned again on a conflict. */

const NOW = Date.parse(CREATED_AT);

function handClock(start = NOW): Clock & { set(to: number): void } {
  let now = start;
  return { now: () => now, set: (to) => void (now = to) };
}

describe('AnswerDesk (what respond() writes, and what it hands back)', () => {
  const workflows = new WorkflowRegistry();
  const workflow = workflows.register(linearWorkflow([askNode()], { id: 'intake', version: '1' }));

  async function setUp(
    continueIn: ContinueIn,
    options: { runsHere?: boolean; question?: Partial<InteractionRecord> } = {},
  ) {
    const store = new InMemoryCheckpointStore();
    const clock = handClock();
    const commits: unknown[] = [];
    const counted = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'commit')
          return (unit: Parameters<typeof store.commit>[0]) => (commits.push(unit), target.commit(unit));
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    const thread = await createThread(
      store,
      threadRecord({
        workflowId: 'intake',
        workflowVersion: '1',
        frames: [
          {
            workflowId: 'intake',
            workflowVersion: '1',
            definitionHash: definitionHash(workflow),
            cursor: 'ask',
            variables: {},
            loops: [],
          },
        ],
        status: 'waiting',
        pendingInteractionIds: ['i-1'],
      }),
    );
    const { toolApproval: _toolApproval, ...request } = interactionRecord().request;
    const question = interactionRecord({
      interactionId: 'i-1',
      nodeId: 'ask',
      deadline: new Date(NOW + 60_000).toISOString(),
      request: {
        ...request,
        interactionId: 'i-1',
        operationType: 'UPDATE_VARIABLES',
        prompt: 'Your answer?',
        input: { kind: 'confirm' },
      },
      ...options.question,
    });
    await committed(store, { interactions: [{ kind: 'open', interaction: question }] });
    const tools = new ToolRegistry();
    const interpreter = new ResponseInterpreter(
      tools,
      new ApprovalPolicy(tools, resolveApprovalOptions({}), safeShell, store, clock),
      '/',
    );
    const definitions = new ThreadDefinitions(workflows, store, (kept) => store.commit({ definitions: [kept] }));
    const published: EmittedEvent[] = [];
    const desk = new AnswerDesk(counted, interpreter, new JobPlanner(continueIn, clock, 30_000), clock, {
      owner: 'process-me',
      runsHere: () => options.runsHere ?? false,
      publish: (_thread, event) => published.push(event),
      checkDefinitions: (stored) => definitions.check(stored),
    });
    commits.length = 0;
    return { store, clock, thread, desk, commits, published };
  }

  it('hands a valid answer back to be folded into a run here, in its interpreted form, writing nothing', async () => {
    const { store, desk, commits } = await setUp('this-process');
    expect(await desk.answer('i-1', 'yes', 'ada')).toMatchObject({
      kind: 'fold',
      threadId: 'thread-1',
      stored: { thread: { threadId: 'thread-1', pendingInteractionIds: ['i-1'] } },
      changes: [{ kind: 'answer', response: { input: true, responder: 'ada', respondedAt: CREATED_AT } }],
    });
    expect(commits).toEqual([]);
    expect((await store.getInteraction('i-1'))?.status).toBe('pending');
  });

  it('stores the answer on its own, in one commit, when a run of this process holds the thread', async () => {
    const { store, desk, commits } = await setUp('this-process', { runsHere: true });
    expect(await desk.answer('i-1', 'yes', 'ada')).toEqual({
      kind: 'continue',
      threadId: 'thread-1',
      interactionId: 'i-1',
      notify: true,
    });
    expect(commits).toHaveLength(1);
    expect(await store.getInteraction('i-1')).toMatchObject({ status: 'responded', response: { input: true } });
  });

  it('refuses an answer its input kind cannot take, and writes nothing', async () => {
    const { store, desk, commits } = await setUp('this-process');
    await expect(desk.answer('i-1', 'perhaps', 'ada')).rejects.toMatchObject({ code: 'INTERACTION_INVALID_RESPONSE' });
    expect(commits).toEqual([]);
    expect((await store.getInteraction('i-1'))?.status).toBe('pending');
  });

  it('stores the first of two answers given at once; the second, read again, is told it was answered', async () => {
    const { store, desk, commits } = await setUp('this-process', { runsHere: true });
    const [first, second] = await Promise.all([desk.answer('i-1', true, 'ada'), desk.answer('i-1', false, 'bob')]);
    expect(first).toMatchObject({ kind: 'continue' });
    expect(second).toEqual({ kind: 'told', result: { status: 'already_answered', threadId: 'thread-1' } });
    // Two commits planned from the same read; the store refused the second.
    expect(commits).toHaveLength(2);
    expect((await store.getInteraction('i-1'))?.response).toMatchObject({ input: true, responder: 'ada' });
  });

  it('takes the same answer again as a retry to go on with, and refuses another one', async () => {
    const { desk } = await setUp('this-process', { runsHere: true });
    await desk.answer('i-1', true, 'ada');
    expect(await desk.answer('i-1', 'y', 'ada')).toEqual({
      kind: 'continue',
      threadId: 'thread-1',
      interactionId: 'i-1',
      notify: false,
      repeated: true,
    });
    expect(await desk.answer('i-1', false, 'bob')).toMatchObject({ result: { status: 'already_answered' } });
  });

  it('says an answer repeated after its thread applied it was applied, and the thread ended since', async () => {
    const { store, thread, desk } = await setUp('this-process', { runsHere: true });
    await desk.answer('i-1', true, 'ada');
    await committed(store, {
      thread: save(thread, { status: 'completed', pendingInteractionIds: [] }),
      interactions: [{ kind: 'consume', interactionId: 'i-1', at: CREATED_AT }],
    });
    expect(await desk.answer('i-1', true, 'ada')).toEqual({
      kind: 'told',
      result: {
        status: 'accepted',
        threadId: 'thread-1',
        continuation: { status: 'finished', threadStatus: 'completed' },
        repeated: true,
      },
    });
  });

  it('times out a question whose deadline passed instead of storing a late answer, and has the thread go on', async () => {
    const { store, clock, desk, commits } = await setUp('this-process');
    clock.set(NOW + 60_000);
    expect(await desk.answer('i-1', true, 'ada')).toEqual({
      kind: 'told',
      result: { status: 'expired', threadId: 'thread-1' },
      goOn: 'thread-1',
    });
    expect(commits).toHaveLength(1);
    expect(await store.getInteraction('i-1')).toMatchObject({ status: 'failed', failureReason: 'timeout' });
  });

  it('retires a question its thread never checkpointed as waiting on (an orphan of a crash)', async () => {
    const { store, thread, desk } = await setUp('this-process');
    await committed(store, { thread: save(thread, { pendingInteractionIds: [] }) });
    expect(await desk.answer('i-1', true, 'ada')).toMatchObject({ kind: 'told', result: { status: 'expired' } });
    expect(await store.getInteraction('i-1')).toMatchObject({ status: 'failed', failureMessage: SUPERSEDED });
  });

  it('takes an answer to a question its thread has not checkpointed yet while a run of this process holds the thread', async () => {
    const { store, thread, desk } = await setUp('this-process', { runsHere: true });
    await committed(store, { thread: save(thread, { pendingInteractionIds: [] }) });
    expect(await desk.answer('i-1', true, 'ada')).toMatchObject({ kind: 'continue' });
    expect((await store.getInteraction('i-1'))?.status).toBe('responded');
  });

  it('refuses an answer to a thread whose workflow changed under the same version, before storing it', async () => {
    const { store, thread, desk, commits } = await setUp('this-process');
    const frame = present(thread.frames[0]);
    await committed(store, { thread: save(thread, { frames: [{ ...frame, definitionHash: 'sha256:another' }] }) });
    commits.length = 0;
    await expect(desk.answer('i-1', true, 'ada')).rejects.toMatchObject({ code: 'WORKFLOW_CHANGED' });
    expect(commits).toEqual([]);
    expect((await store.getInteraction('i-1'))?.status).toBe('pending');
  });

  it('with workers, stores the answer with the jobs that continue and recover its thread, in one commit', async () => {
    const { store, desk, commits } = await setUp('workers');
    expect(await desk.answer('i-1', true, 'ada')).toEqual({
      kind: 'told',
      result: { status: 'accepted', threadId: 'thread-1', continuation: { status: 'scheduled' } },
    });
    expect(commits).toHaveLength(1);
    expect(await store.getInteraction('i-1')).toMatchObject({ status: 'responded', response: { input: true } });
    const later = (ms: number) => new Date(NOW + ms).toISOString();
    const jobs = await store.takeJobs(['intake@1'], 'worker', later(3_600_000), later(3_601_000), 10);
    expect(jobs.map((job) => job.kind).sort()).toEqual(['continue', 'recover']);
  });

  it('with workers, still leaves the answer to a run of this process that holds the thread', async () => {
    const { store, desk } = await setUp('workers', { runsHere: true });
    expect(await desk.answer('i-1', true, 'ada')).toMatchObject({ kind: 'continue', notify: true });
    const later = new Date(NOW + 3_600_000).toISOString();
    expect(await store.takeJobs(['intake@1'], 'worker', later, later, 10)).toEqual([]);
  });

  it('stores the answer alone when the run this process started stored nothing, and says why it did not go on', async () => {
    const { store, desk } = await setUp('this-process');
    const stalled = new InterlockError('TOOL_NOT_FOUND', 'this process does not hold the tool');
    expect(await desk.answer('i-1', true, 'ada', { error: stalled })).toEqual({
      kind: 'told',
      result: {
        status: 'accepted',
        threadId: 'thread-1',
        continuation: { status: 'stalled', code: 'TOOL_NOT_FOUND', message: 'this process does not hold the tool' },
      },
    });
    expect(await desk.answer('i-1', true, 'ada', { conflict: 'thread-taken' })).toMatchObject({ kind: 'continue' });
    expect((await store.getInteraction('i-1'))?.status).toBe('responded');
  });

  it('says which interaction it does not know', async () => {
    const { desk } = await setUp('this-process');
    const error = await desk.answer('i-404', true, 'ada').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InterlockError);
    expect(error).toMatchObject({ code: 'INTERACTION_NOT_FOUND', message: expect.stringContaining('i-404') });
  });

  describe('a call that needs several approvers (F51)', () => {
    const quorum = (extra: Partial<ApprovalQuorum> = {}): Partial<InteractionRecord> => {
      const base = interactionRecord({ interactionId: 'i-1' });
      return {
        request: {
          ...base.request,
          toolApproval: {
            ...present(base.request.toolApproval),
            quorum: { required: 3, given: 0, approvedBy: [], ...extra } as ApprovalQuorum,
          },
        },
      };
    };

    it('counts an approval that is not the last with its audit entry in one commit, and two at once both count', async () => {
      const { store, desk, commits } = await setUp('this-process', { question: quorum() });
      const [first, second] = await Promise.all([
        desk.answer('i-1', { approved: true }, 'web:ada'),
        desk.answer('i-1', { approved: true }, 'web:bob'),
      ]);
      expect([first, second].map((told) => (told.kind === 'told' ? told.result : told))).toEqual([
        expect.objectContaining({ continuation: { status: 'awaiting-approvals', given: 1, required: 3 } }),
        expect.objectContaining({ continuation: { status: 'awaiting-approvals', given: 2, required: 3 } }),
      ]);
      // The second was refused once (the count moved), read and planned again.
      expect(commits).toHaveLength(3);
      expect((await store.getInteraction('i-1'))?.quorum?.approvals.map((given) => given.responder)).toEqual([
        'web:ada',
        'web:bob',
      ]);
      expect((await store.listAuditEntries()).map((entry) => entry.rule)).toEqual(['quorum:partial', 'quorum:partial']);
    });

    it('escalates a call past its escalation time once, audited, and tells who it is offered to', async () => {
      const at = new Date(NOW + 60_000).toISOString();
      const { store, clock, desk, published } = await setUp('this-process', {
        question: quorum({ escalation: { at, approvers: ['web:erin'], escalated: false } }),
      });
      expect(await desk.escalate('i-1')).toBe(false);
      clock.set(NOW + 60_000);
      expect(await desk.escalate('i-1')).toBe(true);
      expect(await desk.escalate('i-1')).toBe(false);
      expect((await store.getInteraction('i-1'))?.quorum?.escalatedAt).toBe(at);
      expect((await store.listAuditEntries()).map((entry) => entry.rule)).toEqual(['quorum:escalated']);
      expect(published).toEqual([
        expect.objectContaining({ type: 'USER_INTERACTION_ESCALATED', approvers: ['web:erin'] }),
      ]);
    });
  });

  it('times a question out once at its deadline, and says so again only when asked again after a failure', async () => {
    const { desk } = await setUp('this-process');
    expect(await desk.timeOut('i-1')).toBe(true);
    expect(await desk.timeOut('i-1')).toBe(false);
    expect(await desk.timeOut('i-1', { again: true })).toBe(true);
  });

  it('records an attempt that did not count against the interaction it tried to answer', async () => {
    const { desk } = await setUp('this-process');
    expect(
      await desk.recordAttempt({ interactionId: 'i-1', responder: 'web:bob', result: 'lost', reason: 'too late' }),
    ).toMatchObject({ rule: 'attempt:lost', responder: 'web:bob', threadId: 'thread-1' });
    expect(
      await desk.recordAttempt({ interactionId: 'i-404', responder: 'web:bob', result: 'lost', reason: 'too late' }),
    ).toBeUndefined();
  });

  it("keeps the engine's own global variables in one commit, tells a lost compare-and-set, and never a workflow's", async () => {
    const { store, desk, commits } = await setUp('this-process');
    const scope = 'interlock:web-sessions';
    expect(await desk.keepGlobals([{ kind: 'set', scope, name: 'a', value: 1 }])).toBe(true);
    expect(await desk.keepGlobals([{ kind: 'compare-and-set', scope, name: 'a', expected: 2, value: 3 }])).toBe(false);
    await expect(desk.keepGlobals([{ kind: 'set', scope: 'intake', name: 'a', value: 4 }])).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    expect(commits).toHaveLength(2);
    expect(await store.getGlobalVariables(scope)).toEqual({ a: 1 });
    expect(await store.getGlobalVariables('intake')).toEqual({});
  });
});
