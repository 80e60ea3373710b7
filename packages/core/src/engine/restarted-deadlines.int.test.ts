import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, type Interlock, type StoreOptions } from '../index.js';
import { scriptedModel, until } from '../testing/index.js';

/*
 * Embedded, no workers (the README's default), on a SQLite file (issue 35): a thread waits for
 * an approval with a deadline and its process restarts. Whichever process times the question
 * out takes the thread forward and the model is told TIMEOUT — nobody calls resume(). Time is
 * vitest's fake clock: the deadline passes without a real wait.
 */

const APPROVAL_TIMEOUT_MS = 10 * 60_000;

const definition = linearWorkflow(
  [{ id: 'agent', type: 'LLM', config: { systemPrompt: 'Deploy.', tools: ['deploy'], outputVariable: 'output' } }],
  { id: 'deploy' },
);
definition.config = { toolApproval: { autoApprovedTools: [], approvalTimeout: APPROVAL_TIMEOUT_MS } };

/** One process of the embedded default: its model, what its deploy tool really did, its Interlock. */
async function process(store: StoreOptions, deployed: string[]): Promise<{ interlock: Interlock; told: string[] }> {
  const told: string[] = [];
  const model = scriptedModel((request) => {
    const result = request.messages.find((message) => message.role === 'tool');
    if (result === undefined)
      return {
        text: 'Deploying.',
        toolCalls: [{ id: 'deploy-1', name: 'deploy', arguments: { target: 'production' } }],
      };
    const content = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
    told.push(content);
    return `Not deployed: ${content}`;
  });
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys the service',
    category: 'command',
    riskLevel: 'HIGH',
    parameters: z.object({ target: z.string() }),
    execute: async ({ target }) => {
      deployed.push(target);
      return `deployed ${target}`;
    },
  });
  const interlock = await createInterlock({ store, models: { default: model }, tools: [deploy] });
  interlock.registerWorkflow(definition);
  return { interlock, told };
}

const open: Interlock[] = [];
afterEach(async () => {
  for (const interlock of open.splice(0)) await interlock.close();
  vi.useRealTimers();
});

async function sqliteFile(): Promise<StoreOptions> {
  return { type: 'sqlite', path: join(await mkdtemp(join(tmpdir(), 'interlock-restart-')), 'interlock.db') };
}

/** Moves the fake clock on until the thread is no longer waiting (a limit only a hang reaches). */
function wentOn(interlock: Interlock, threadId: string) {
  return until(
    'the thread to go on after its deadline',
    () => interlock.thread(threadId),
    (thread) => thread !== undefined && thread.status !== 'waiting' && thread.status !== 'running',
    { advance: (ms) => vi.advanceTimersByTimeAsync(ms), intervalMs: 30_000, timeoutMs: 4 * APPROVAL_TIMEOUT_MS },
  );
}

describe('a question whose deadline passes after its process restarted, embedded on SQLite (issue 35, F28, F40)', () => {
  it('is timed out by the restarted process, which takes the thread forward: the model is told TIMEOUT, with no resume() by hand', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const store = await sqliteFile();
    const deployed: string[] = [];
    const first = await process(store, deployed);
    const waiting = await (await first.interlock.start('deploy', { channel: 'inbox' })).done();
    expect(waiting.status).toBe('waiting');
    await first.interlock.close();

    // Restarted before the deadline; it stays up past it.
    const restarted = await process(store, deployed);
    open.push(restarted.interlock);
    const thread = await wentOn(restarted.interlock, waiting.threadId);

    expect(thread).toMatchObject({ status: 'completed', output: expect.stringMatching(/^Not deployed: \[TIMEOUT\]/) });
    expect(restarted.told).toEqual([expect.stringMatching(/^\[TIMEOUT\]/)]);
    expect(deployed).toEqual([]);
    const [question] = await restarted.interlock.interactions({ threadId: waiting.threadId });
    expect(question).toMatchObject({ status: 'failed', failureReason: 'timeout' });
    // A person's late answer is refused as expired and changes nothing.
    expect(await restarted.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
      status: 'expired',
    });
    expect(deployed).toEqual([]);
  });

  it('with the process that asked still up beside the restarted one, the thread goes on once, in whichever timed it out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const store = await sqliteFile();
    const deployed: string[] = [];
    const asking = await process(store, deployed);
    open.push(asking.interlock);
    const waiting = await (await asking.interlock.start('deploy', { channel: 'inbox' })).done();
    const other = await process(store, deployed);
    open.push(other.interlock);

    const thread = await wentOn(other.interlock, waiting.threadId);
    expect(thread).toMatchObject({ status: 'completed', output: expect.stringMatching(/^Not deployed: \[TIMEOUT\]/) });
    expect([...asking.told, ...other.told]).toEqual([expect.stringMatching(/^\[TIMEOUT\]/)]);
    expect(deployed).toEqual([]);
  });

  it('restarted after the deadline: timed out at start, and a late answer, told expired, takes the thread forward', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const store = await sqliteFile();
    const deployed: string[] = [];
    const first = await process(store, deployed);
    const waiting = await (await first.interlock.start('deploy', { channel: 'inbox' })).done();
    const [question] = await first.interlock.pending();
    await first.interlock.close();

    // Nobody ran past the deadline; the process that starts then times the question out.
    vi.setSystemTime(Date.now() + 2 * APPROVAL_TIMEOUT_MS);
    const restarted = await process(store, deployed);
    open.push(restarted.interlock);
    expect(await restarted.interlock.pending()).toEqual([]);
    expect(await restarted.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
      status: 'expired',
    });
    const thread = await wentOn(restarted.interlock, waiting.threadId);
    expect(thread).toMatchObject({ status: 'completed', output: expect.stringMatching(/^Not deployed: \[TIMEOUT\]/) });
    expect(restarted.told).toEqual([expect.stringMatching(/^\[TIMEOUT\]/)]);
    expect(deployed).toEqual([]);
  });
});
