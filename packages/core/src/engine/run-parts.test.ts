import { afterEach, describe, expect, it, vi } from 'vitest';
import { askNode, linearWorkflow } from '../__fixtures__/workflows.js';
import { InterlockError } from '../errors/interlock-error.js';
import { ResponseInterpreter } from '../interaction/response-interpreter.js';
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
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { safeShell } from '../tools/__fixtures__/turn-parts.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { JobPlanner, type ContinueIn } from '../workers/job-planner.js';
import { WorkflowRegistry } from '../workflow/workflow-registry.js';
import { definitionHash } from '../workflow/definition-hash.js';
import { AnswerIntake, type IntakeHooks } from './answer-intake.js';
import type { Clock } from './clock.js';
import { DeadlineTimers } from './deadline-timers.js';
import { newThreadRecord } from './new-thread.js';
import { ThreadDefinitions } from './thread-definitions.js';

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
function handClock(start = NOW): Clock & { set(to: number): void } {
  let now = start;
  return { now: () => now, set: (to) => void (now = to) };
}

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

describe('AnswerIntake (the first half of respond)', () => {
  const workflows = new WorkflowRegistry();
  const workflow = workflows.register(linearWorkflow([askNode()], { id: 'intake', version: '1' }));

  async function setUp(continueIn: ContinueIn, hooks: Partial<IntakeHooks> = {}) {
    const store = new InMemoryCheckpointStore();
    const clock = handClock();
    const definitions = new ThreadDefinitions(workflows, store);
    await definitions.keep(workflow);
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
    });
    await committed(store, { interactions: [{ kind: 'open', interaction: question }] });
    const expired: string[] = [];
    const retired: string[] = [];
    const tools = new ToolRegistry();
    const interpreter = new ResponseInterpreter(
      tools,
      new ApprovalPolicy(tools, resolveApprovalOptions({}), safeShell, store, clock),
      '/',
    );
    const intake = new AnswerIntake(store, interpreter, definitions, new JobPlanner(continueIn, clock, 30_000), clock, {
      isRunningHere: () => false,
      isHeldByLiveRun: () => false,
      expire: async (interaction) => void expired.push(interaction.interactionId),
      retire: async (interactionId) => void retired.push(interactionId),
      ...hooks,
    });
    /** Takes an answer in and stores it on its own (as the runner does when another run holds the thread). */
    const answer = async (input: unknown, responder: string) => {
      const intaken = await intake.take('i-1', input, responder);
      if (intaken.kind !== 'valid') return expect.unreachable(`the answer was not valid: ${JSON.stringify(intaken)}`);
      return intake.storeAlone(intaken, input);
    };
    return { store, clock, thread, intake, answer, expired, retired };
  }

  it('takes an answer in its interpreted form, writes nothing, and hands it and the thread on to be stored with the run', async () => {
    const { store, intake } = await setUp('this-process');
    const intaken = await intake.take('i-1', 'yes', 'ada');
    expect(intaken).toMatchObject({
      kind: 'valid',
      interaction: { interactionId: 'i-1' },
      stored: { thread: { threadId: 'thread-1', pendingInteractionIds: ['i-1'] } },
      response: { input: true, responder: 'ada', respondedAt: CREATED_AT },
    });
    expect((await store.getInteraction('i-1'))?.status).toBe('pending');
  });

  it('stores a valid answer on its own in its interpreted form', async () => {
    const { store, answer } = await setUp('this-process');
    expect(await answer('yes', 'ada')).toBe('stored');
    expect(await store.getInteraction('i-1')).toMatchObject({
      status: 'responded',
      response: { input: true, responder: 'ada' },
    });
  });

  it('refuses an answer its input kind cannot take, and writes nothing', async () => {
    const { store, intake } = await setUp('this-process');
    await expect(intake.take('i-1', 'perhaps', 'ada')).rejects.toMatchObject({ code: 'INTERACTION_INVALID_RESPONSE' });
    expect((await store.getInteraction('i-1'))?.status).toBe('pending');
  });

  it('takes the same answer again as a retry, and refuses another one', async () => {
    const { intake, answer } = await setUp('this-process');
    await answer(true, 'ada');
    expect(await intake.take('i-1', 'y', 'ada')).toMatchObject({
      kind: 'stored-before',
      interaction: { interactionId: 'i-1', status: 'responded' },
      thread: { threadId: 'thread-1' },
    });
    expect(await intake.take('i-1', false, 'bob')).toEqual({
      kind: 'answered',
      status: 'already_answered',
      threadId: 'thread-1',
    });
  });

  it('stores the first of two answers taken in at once, and refuses the second', async () => {
    const { store, intake } = await setUp('this-process');
    const first = await intake.take('i-1', true, 'ada');
    const second = await intake.take('i-1', false, 'bob');
    if (first.kind !== 'valid' || second.kind !== 'valid') return expect.unreachable('both answers are valid');
    expect(await intake.storeAlone(first, true)).toBe('stored');
    expect(await intake.storeAlone(second, false)).toEqual({
      kind: 'answered',
      status: 'already_answered',
      threadId: 'thread-1',
    });
    expect((await store.getInteraction('i-1'))?.response).toMatchObject({ input: true, responder: 'ada' });
  });

  it('says an answer repeated after its thread applied it was applied', async () => {
    const { store, intake, answer } = await setUp('this-process');
    await answer(true, 'ada');
    await committed(store, { interactions: [{ kind: 'consume', interactionId: 'i-1', at: CREATED_AT }] });
    expect(await intake.take('i-1', true, 'ada')).toEqual({
      kind: 'answered',
      status: 'applied',
      threadId: 'thread-1',
      repeated: true,
    });
  });

  it('times out a question whose deadline passed instead of storing a late answer', async () => {
    const { store, clock, intake, expired } = await setUp('this-process');
    clock.set(NOW + 60_000);
    expect(await intake.take('i-1', true, 'ada')).toEqual({
      kind: 'answered',
      status: 'expired',
      threadId: 'thread-1',
    });
    expect(expired).toEqual(['i-1']);
    expect((await store.getInteraction('i-1'))?.response).toBeUndefined();
  });

  it('retires a question its thread never checkpointed as waiting on (an orphan of a crash)', async () => {
    const { store, thread, intake, retired } = await setUp('this-process');
    await committed(store, { thread: save(thread, { pendingInteractionIds: [] }) });
    expect(await intake.take('i-1', true, 'ada')).toMatchObject({ kind: 'answered', status: 'expired' });
    expect(retired).toEqual(['i-1']);
  });

  it('takes an answer to a question its thread has not checkpointed yet while a live run holds the thread', async () => {
    const { store, thread, answer, retired } = await setUp('this-process', { isHeldByLiveRun: () => true });
    await committed(store, { thread: save(thread, { pendingInteractionIds: [] }) });
    expect(await answer(true, 'ada')).toBe('stored');
    expect(retired).toEqual([]);
    expect((await store.getInteraction('i-1'))?.status).toBe('responded');
  });

  it('refuses an answer to a thread whose workflow changed under the same version, before storing it', async () => {
    const { store, thread, intake } = await setUp('this-process');
    const frame = present(thread.frames[0]);
    await committed(store, { thread: save(thread, { frames: [{ ...frame, definitionHash: 'sha256:another' }] }) });
    await expect(intake.take('i-1', true, 'ada')).rejects.toMatchObject({ code: 'WORKFLOW_CHANGED' });
    expect((await store.getInteraction('i-1'))?.status).toBe('pending');
  });

  it('with workers, stores the answer with the jobs that continue and recover its thread', async () => {
    const { store, intake } = await setUp('workers');
    expect(await intake.take('i-1', true, 'ada')).toEqual({
      kind: 'answered',
      status: 'scheduled',
      threadId: 'thread-1',
    });
    expect(await store.getInteraction('i-1')).toMatchObject({ status: 'responded', response: { input: true } });
    const later = (ms: number) => new Date(NOW + ms).toISOString();
    const jobs = await store.takeJobs(['intake@1'], 'worker', later(3_600_000), later(3_601_000), 10);
    expect(jobs.map((job) => job.kind).sort()).toEqual(['continue', 'recover']);
  });

  it('with workers, still takes the answer itself for a thread this process is running', async () => {
    const { store, intake } = await setUp('workers', { isRunningHere: () => true });
    expect(await intake.take('i-1', true, 'ada')).toMatchObject({ kind: 'valid', response: { input: true } });
    expect(await store.takeJobs(['intake'], 'worker', later(), later(), 10)).toEqual([]);
  });

  it('says which interaction it does not know', async () => {
    const { intake } = await setUp('this-process');
    const error = await intake.take('i-404', true, 'ada').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InterlockError);
    expect(error).toMatchObject({ code: 'INTERACTION_NOT_FOUND', message: expect.stringContaining('i-404') });
  });
});

/** An hour after NOW. */
function later(): string {
  return new Date(NOW + 3_600_000).toISOString();
}
