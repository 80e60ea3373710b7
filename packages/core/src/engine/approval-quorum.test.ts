import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { InterlockEvent, QuorumConfigInput } from '@interlock/sdk-types';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, InterlockError, type Interlock } from '../index.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import type { CommitResult, UnitOfWork } from '../persistence/unit-of-work.js';
import { scriptedModel } from '../testing/index.js';

/*
 * N-of-M approvals (F51): a risky call runs only once enough different people approved the
 * same arguments; the requester never counts, an edit resets the others, a rejection ends
 * it, each approval is audited as it is given, and pending() shows how far it got. And the
 * escalation of an approval that waits too long.
 */

let interlock: Interlock | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await interlock?.close();
  interlock = undefined;
});

const runs: Record<string, unknown>[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service',
  category: 'command',
  riskLevel: 'HIGH',
  parameters: z.object({ env: z.string() }),
  execute: async (args) => {
    runs.push(args);
    return `deployed to ${args.env}`;
  },
});

/**
 * A thread whose model proposes `deploy({ env: 'prod' })`, asked by rita, waiting for approvals:
 * the quorum set on the workflow (or on the instance, `where`), with `store` if given.
 */
async function deployAsked(
  quorum: QuorumConfigInput,
  {
    onToolApprove,
    where = 'workflow',
    store,
  }: { onToolApprove?: () => boolean; where?: 'workflow' | 'instance'; store?: InMemoryCheckpointStore } = {},
) {
  runs.length = 0;
  const model = scriptedModel([
    { text: '', toolCalls: [{ id: 'c1', name: 'deploy', arguments: { env: 'prod' } }] },
    'done',
  ]);
  interlock = await createInterlock({
    ...(store ? { store: { type: 'custom' as const, store } } : {}),
    models: { default: model },
    tools: [deploy],
    approval: { ...(onToolApprove ? { onToolApprove } : {}), ...(where === 'instance' ? { quorum } : {}) },
  });
  const events: InterlockEvent[] = [];
  interlock.events$.subscribe((event) => events.push(event));
  const workflow = interlock.registerWorkflow({
    ...linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['deploy'] } }], { id: 'release' }),
    config: { toolApproval: { approvalTimeout: '1h', ...(where === 'workflow' ? { quorum } : {}) } },
  });
  const thread = await interlock.start(workflow, { channel: 'inbox', session: { requestedBy: 'web:rita' } });
  expect((await thread.done()).status).toBe('waiting');
  const [request] = await interlock.pending();
  return { model, events, threadId: thread.threadId, interactionId: request!.interactionId };
}

const approve = (interactionId: string, responder: string, editedParameters?: Record<string, unknown>) =>
  interlock!.respond(
    interactionId,
    { approved: true, ...(editedParameters ? { editedParameters } : {}) },
    { responder },
  );

async function finished(threadId: string) {
  await vi.waitFor(async () => expect((await interlock!.thread(threadId))?.status).toBe('completed'));
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error: unknown = await promise.then(
    () => expect.unreachable('expected a refusal'),
    (reason: unknown) => reason,
  );
  return InterlockError.is(error) ? error.code : String(error);
}

describe('N-of-M approvals (F51)', () => {
  it('runs the call once, after two different approvers approved the same arguments, each approval audited', async () => {
    const onToolApprove = vi.fn(() => true);
    const { threadId, interactionId } = await deployAsked({ required: 2 }, { onToolApprove });
    // An automatic approver is one voice: a call that needs two people goes to people.
    expect(onToolApprove).not.toHaveBeenCalled();
    expect((await interlock!.pending())[0]?.toolApproval?.quorum).toMatchObject({ required: 2, given: 0 });

    expect(await approve(interactionId, 'web:alice')).toEqual({
      status: 'accepted',
      threadId,
      continuation: { status: 'awaiting-approvals', given: 1, required: 2 },
    });
    expect(runs).toEqual([]);
    const [waiting] = await interlock!.pending();
    expect(waiting?.toolApproval?.quorum).toEqual({ required: 2, given: 1, approvedBy: ['web:alice'] });
    expect(await interlock!.audit({ threadId })).toContainEqual(
      expect.objectContaining({ decidedBy: 'person', rule: 'quorum:partial', responder: 'web:alice', interactionId }),
    );

    expect(await approve(interactionId, 'web:bob')).toMatchObject({
      status: 'accepted',
      continuation: { status: 'continued' },
    });
    await finished(threadId);
    expect(runs).toEqual([{ env: 'prod' }]);
    expect(await interlock!.pending()).toEqual([]);
    const decisions = (await interlock!.audit({ threadId })).filter((entry) => entry.decidedBy === 'person');
    expect(decisions.map((entry) => [entry.responder, entry.outcome, entry.reason])).toEqual([
      ['web:alice', 'allow', expect.stringContaining('approval 1 of 2')],
      ['web:bob', 'allow', 'approved by 2 approvers: web:alice, web:bob'],
    ]);
  });

  it("stores the last approval with the answer in the run's first commit: one unit of work, not two", async () => {
    const units: UnitOfWork[] = [];
    class RecordingStore extends InMemoryCheckpointStore {
      override commit(unit: UnitOfWork): Promise<CommitResult> {
        units.push(unit);
        return super.commit(unit);
      }
    }
    const { threadId, interactionId } = await deployAsked({ required: 2 }, { store: new RecordingStore() });
    await approve(interactionId, 'web:alice');
    units.length = 0;
    expect(await approve(interactionId, 'web:bob')).toMatchObject({ continuation: { status: 'continued' } });
    // The count of bob's approval, his answer and the claim of the thread that applies it: one
    // commit (the run's first; the deployment's receipt key, made for the first receipt, may come before).
    const first = units.find((unit) => unit.thread !== undefined);
    expect(first?.interactions?.map((change) => change.kind).slice(0, 2)).toEqual(['approve-partially', 'answer']);
    expect(first?.thread).toMatchObject({ kind: 'save', claim: { kind: 'take' } });
    await finished(threadId);
    expect(runs).toEqual([{ env: 'prod' }]);
    expect(
      units.filter((unit) => unit.interactions?.some((change) => change.kind === 'approve-partially')),
    ).toHaveLength(1);
  });

  it('counts the last approval again when another approval was stored between its read and its commit', async () => {
    let interleaved = false;
    class InterleavingStore extends InMemoryCheckpointStore {
      override async commit(unit: UnitOfWork): Promise<CommitResult> {
        const last = unit.interactions?.find((change) => change.kind === 'approve-partially');
        if (!interleaved && last !== undefined && unit.thread !== undefined) {
          interleaved = true;
          // carol's approval, given in another process, lands first.
          const carol = { ...last.approval, responder: 'web:carol' };
          await super.commit({ interactions: [{ ...last, approval: carol }] });
        }
        return super.commit(unit);
      }
    }
    const { threadId, interactionId } = await deployAsked({ required: 2 }, { store: new InterleavingStore() });
    await approve(interactionId, 'web:alice');
    expect(await approve(interactionId, 'web:bob')).toMatchObject({ status: 'accepted' });
    expect(interleaved).toBe(true);
    await finished(threadId);
    expect(runs).toEqual([{ env: 'prod' }]);
    const decisions = (await interlock!.audit({ threadId })).filter((entry) => entry.decidedBy === 'person');
    expect(decisions.at(-1)).toMatchObject({
      responder: 'web:bob',
      reason: 'approved by 3 approvers: web:alice, web:carol, web:bob',
    });
  });

  it('counts each person once, whatever surface they answer from', async () => {
    const { interactionId } = await deployAsked({ required: 2 });
    await approve(interactionId, 'web:alice');
    for (const again of ['web:alice', 'cli:alice'])
      expect(await approve(interactionId, again)).toMatchObject({
        continuation: { status: 'awaiting-approvals', given: 1, required: 2 },
        repeated: true,
      });
    expect(runs).toEqual([]);
  });

  it('resets the others when an approver edits the arguments: the edit runs once two approved it', async () => {
    const { threadId, interactionId, model } = await deployAsked({ required: 2 });
    await approve(interactionId, 'web:alice');
    expect(await approve(interactionId, 'web:bob', { env: 'staging' })).toMatchObject({
      continuation: { given: 1, required: 2 },
    });
    expect((await interlock!.pending())[0]?.toolApproval?.quorum).toEqual({
      required: 2,
      given: 1,
      approvedBy: ['web:bob'],
      arguments: { env: 'staging' },
    });
    // Alice approved the proposal, not the edit: approving the proposal again starts over.
    expect(await approve(interactionId, 'web:alice')).toMatchObject({ continuation: { given: 1 } });
    await approve(interactionId, 'web:carol', { env: 'staging' });
    expect(await approve(interactionId, 'web:bob', { env: 'staging' })).toMatchObject({
      continuation: { status: 'continued' },
    });
    await finished(threadId);
    expect(runs).toEqual([{ env: 'staging' }]);
    expect(model.requests.at(-1)?.messages.find((message) => message.role === 'tool')?.content).toBe(
      '[SUCCESS] deployed to staging',
    );
  });

  it("never counts the requester's approval, nor one that names nobody", async () => {
    const { interactionId } = await deployAsked({ required: 2 });
    for (const requester of ['web:rita', 'cli:rita', 'rita'])
      expect(await codeOf(approve(interactionId, requester))).toBe('APPROVAL_NOT_ALLOWED');
    expect(await codeOf(interlock!.respond(interactionId, { approved: true }))).toBe('APPROVAL_NOT_ALLOWED');
    await approve(interactionId, 'web:alice');
    expect(await codeOf(approve(interactionId, 'web:rita'))).toBe('APPROVAL_NOT_ALLOWED');
    expect((await interlock!.pending())[0]?.toolApproval?.quorum).toMatchObject({ given: 1 });
    expect(runs).toEqual([]);
  });

  it('ends the call when any approver rejects it, whatever the approvals before', async () => {
    const { threadId, interactionId, model } = await deployAsked({ required: 3 });
    await approve(interactionId, 'web:alice');
    await approve(interactionId, 'web:bob');
    expect(
      await interlock!.respond(interactionId, { approved: false, denyReason: 'not today' }, { responder: 'web:carol' }),
    ).toMatchObject({ status: 'accepted', continuation: { status: 'continued' } });
    await finished(threadId);
    expect(runs).toEqual([]);
    expect(model.requests.at(-1)?.messages.find((message) => message.role === 'tool')?.content).toMatch(
      /^\[EXECUTION_REJECTED\].*not today/,
    );
    expect(await approve(interactionId, 'web:dave')).toEqual({ status: 'already_answered', threadId });
  });

  it("takes the quorum from the instance's approval options too (the project file's [approval.quorum])", async () => {
    const { interactionId } = await deployAsked({ required: 3 }, { where: 'instance' });
    expect(await approve(interactionId, 'web:alice')).toMatchObject({ continuation: { given: 1, required: 3 } });
    expect(await approve(interactionId, 'web:bob')).toMatchObject({ continuation: { given: 2, required: 3 } });
    expect(runs).toEqual([]);
  });

  it('asks one person as before for a call below the quorum risk', async () => {
    // The quorum starts at HIGH by default; `deploy` is HIGH, so a quorum from a risk above it is
    // not expressible: a quorum of a workflow that asks for MEDIUM and up still covers it.
    const { interactionId, threadId } = await deployAsked({ required: 2, minRisk: 'MEDIUM' });
    expect(await approve(interactionId, 'web:alice')).toMatchObject({ continuation: { given: 1 } });
    await interlock!.close();
    interlock = undefined;
    const model = scriptedModel([
      { text: '', toolCalls: [{ id: 'c1', name: 'deploy', arguments: { env: 'qa' } }] },
      'done',
    ]);
    const lowDeploy = defineTool({ ...deploy, riskLevel: 'LOW', category: 'ask' });
    interlock = await createInterlock({ models: { default: model }, tools: [lowDeploy] });
    const workflow = interlock.registerWorkflow({
      ...linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['deploy'] } }], { id: 'release' }),
      config: { toolApproval: { approvalTimeout: '1h', quorum: { required: 2, minRisk: 'MEDIUM' } } },
    });
    const thread = await interlock.start(workflow, { channel: 'inbox' });
    await thread.done();
    const [request] = await interlock.pending();
    expect(request?.toolApproval?.quorum).toBeUndefined();
    expect(await approve(request!.interactionId, 'web:alice')).toMatchObject({ continuation: { status: 'continued' } });
    await finished(thread.threadId);
    expect(runs).toEqual([{ env: 'qa' }]);
    expect(threadId).not.toBe(thread.threadId);
  });
});

describe('escalation of an approval that waits too long (F51)', () => {
  it('lets the second list approve after the configured time, audited and announced', async () => {
    vi.useFakeTimers();
    const { threadId, interactionId, events } = await deployAsked({
      required: 2,
      escalation: { after: '10m', approvers: ['web:erin'] },
    });
    const [request] = await interlock!.pending();
    expect(request?.toolApproval?.quorum?.escalation).toMatchObject({ approvers: ['web:erin'], escalated: false });

    // Before the escalation, erin's approval does not count.
    expect(await codeOf(approve(interactionId, 'web:erin'))).toBe('APPROVAL_NOT_ALLOWED');
    await approve(interactionId, 'web:alice');
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    await vi.waitFor(() => expect(events.map((event) => event.type)).toContain('USER_INTERACTION_ESCALATED'));
    expect(events.find((event) => event.type === 'USER_INTERACTION_ESCALATED')).toMatchObject({
      interactionId,
      approvers: ['web:erin'],
    });
    expect((await interlock!.pending())[0]?.toolApproval?.quorum?.escalation?.escalated).toBe(true);
    expect(await interlock!.audit({ threadId })).toContainEqual(
      expect.objectContaining({ decidedBy: 'escalation', rule: 'quorum:escalated', interactionId }),
    );
    expect(await interlock!.escalate(interactionId)).toBe(false);

    // Now erin's approval counts: the second of two.
    expect(await approve(interactionId, 'web:erin')).toMatchObject({ continuation: { status: 'continued' } });
    await finished(threadId);
    expect(runs).toEqual([{ env: 'prod' }]);
  });

  it('rejects the call at its deadline when nobody approved after the escalation', async () => {
    vi.useFakeTimers();
    const { threadId, interactionId, model } = await deployAsked({
      required: 2,
      escalation: { after: '10m', approvers: ['web:erin'] },
    });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    await vi.waitFor(async () =>
      expect((await interlock!.pending())[0]?.toolApproval?.quorum?.escalation?.escalated).toBe(true),
    );
    expect(await approve(interactionId, 'web:erin')).toMatchObject({ continuation: { given: 1, required: 2 } });
    await vi.advanceTimersByTimeAsync(50 * 60_000);
    await finished(threadId);
    expect(runs).toEqual([]);
    expect(model.requests.at(-1)?.messages.find((message) => message.role === 'tool')?.content).toMatch(/^\[TIMEOUT\]/);
    expect((await interlock!.audit({ threadId })).map((entry) => entry.decidedBy)).toEqual([
      'escalation',
      'person',
      'interaction:timeout',
    ]);
  });
});
