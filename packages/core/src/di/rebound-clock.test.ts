import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, type Clock } from '../index.js';
import { InMemoryCheckpointStore, scriptedModel } from '../testing/index.js';
import { noteTool, safeShell } from '../tools/__fixtures__/turn-parts.js';
import { TYPES } from './tokens.js';

/* Issue 15: services built from the container use the Clock that configureContainer leaves there. */

const SET_TO = Date.parse('2031-05-06T07:08:09.000Z');

describe('a Clock rebound in configureContainer', () => {
  it('stamps the audit and times the lease on a thread by that clock, not the one createInterlock was given', async () => {
    const rebound: Clock = { now: () => SET_TO };
    const store = new InMemoryCheckpointStore();
    const leases: (string | undefined)[] = [];
    const interlock = await createInterlock({
      store: { type: 'custom', store },
      clock: { now: () => Date.now() },
      leaseMs: 30_000,
      models: {
        default: scriptedModel([
          { text: '', toolCalls: [{ id: 'c1', name: 'note', arguments: { text: 'hi' } }] },
          'done',
        ]),
      },
      tools: [noteTool()],
      shellClassifier: safeShell,
      workspaceRoot: await mkdtemp(join(tmpdir(), 'interlock-rebound-clock-')),
      handlers: {
        cli: {
          async handle(request) {
            const threads = await store.listThreads();
            leases.push(threads.find((thread) => thread.threadId === request.threadId)?.lease?.until);
            return { outcome: 'responded', input: { approved: true } };
          },
        },
      },
      configureContainer: (container) => {
        container.rebind<Clock>(TYPES.Clock).toConstantValue(rebound);
      },
    });
    try {
      const workflow = interlock.registerWorkflow(
        linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['note'] } }], { id: 'rebound-clock' }),
      );
      expect((await (await interlock.start(workflow, { channel: 'cli' })).done()).status).toBe('completed');
      expect(leases).toEqual([new Date(SET_TO + 30_000).toISOString()]);
      const audit = await interlock.audit();
      expect(audit.map((entry) => entry.decidedBy)).toEqual(['person']);
      expect(new Set(audit.map((entry) => entry.at))).toEqual(new Set([new Date(SET_TO).toISOString()]));
    } finally {
      await interlock.close();
    }
  });
});
