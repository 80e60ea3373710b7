import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, type Interlock } from '../index.js';
import { InMemoryCheckpointStore } from '../persistence/memory/in-memory-checkpoint-store.js';
import { scriptedModel } from '../testing/index.js';
import { JobPlanner } from './job-planner.js';
import { JobRunner } from './job-runner.js';
import { jobQueue } from './thread-jobs.js';

/*
 * Escalation in a deployment (F51): the question is stored with an `escalate` job due at its
 * escalation time, and the worker that runs the job offers the question to the second list —
 * recorded, audited, announced — without taking the thread forward.
 */

let interlock: Interlock | undefined;
afterEach(async () => {
  await interlock?.close();
  interlock = undefined;
});

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service',
  category: 'command',
  riskLevel: 'HIGH',
  parameters: z.object({ env: z.string() }),
  execute: async ({ env }) => `deployed to ${env}`,
});

describe('an escalate job (F51)', () => {
  it('is stored with the question, due at its escalation time, and escalates it when a worker runs it', async () => {
    let now = Date.parse('2026-03-01T09:00:00.000Z');
    const clock = { now: () => now };
    const store = new InMemoryCheckpointStore();
    interlock = await createInterlock({
      store: { type: 'custom', store },
      continueIn: 'workers',
      clock,
      models: {
        default: scriptedModel([{ text: '', toolCalls: [{ id: 'c1', name: 'deploy', arguments: { env: 'prod' } }] }]),
      },
      tools: [deploy],
    });
    const escalated: string[] = [];
    interlock.events$.subscribe((event) => {
      if (event.type === 'USER_INTERACTION_ESCALATED') escalated.push(event.interactionId);
    });
    const workflow = interlock.registerWorkflow({
      ...linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['deploy'] } }], { id: 'release' }),
      config: {
        toolApproval: {
          approvalTimeout: '1h',
          quorum: { required: 2, escalation: { after: '15m', approvers: ['web:erin'] } },
        },
      },
    });
    const thread = await interlock.start(workflow, { channel: 'inbox' });
    await thread.done();
    const [request] = await interlock.pending();
    const interactionId = request!.interactionId;

    const due = (at: number) =>
      store.takeJobs(
        [jobQueue(workflow.id, workflow.version)],
        'worker-1',
        new Date(at).toISOString(),
        '9999-01-01T00:00:00.000Z',
        10,
      );
    expect((await due(now + 15 * 60_000 - 1)).map((job) => job.kind)).not.toContain('escalate');
    const [job] = (await due(now + 15 * 60_000)).filter((taken) => taken.kind === 'escalate');
    expect(job).toMatchObject({ interactionId, runAt: '2026-03-01T09:15:00.000Z' });

    now += 15 * 60_000;
    const runner = new JobRunner(interlock, store, clock, new JobPlanner('workers', clock, 15_000));
    expect(await runner.run(job!)).toEqual({ status: 'done', note: 'escalated' });
    expect((await store.getInteraction(interactionId))?.quorum?.escalatedAt).toBe('2026-03-01T09:15:00.000Z');
    expect(escalated).toEqual([interactionId]);
    expect(await interlock.audit({ threadId: thread.threadId })).toEqual([
      expect.objectContaining({
        decidedBy: 'escalation',
        reason: '0 of 2 approvals by 2026-03-01T09:15:00.000Z: offered to web:erin',
      }),
    ]);
    // A second run of the job (a worker that died after it) changes nothing.
    expect(await runner.run(job!)).toEqual({ status: 'done', note: 'nothing to escalate' });
    expect((await store.getThread(thread.threadId))?.status).toBe('waiting');
  });
});
