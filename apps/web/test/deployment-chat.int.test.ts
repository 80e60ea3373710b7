import {
  createWorker,
  defineTool,
  InterlockError,
  scriptedModel,
  type ICheckpointStore,
  type InterlockWorker,
} from '@interlock/core';
import type { WorkflowDefinitionInput } from '@interlock/sdk-types';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { z } from 'zod';
import { createDeploymentInterlock } from '../src/deployment/deployment-interlock.js';
import { createToken, hashToken } from '../src/server/auth/approvers.js';
import { createWebServer } from '../src/server/create-web-server.js';
import { api, dropDeploymentSchemas, newDeployment, until } from './deployment/deployment-harness.js';

/*
 * The chat of a deployment (issue 12): the web server runs no thread; the chat's agent runs
 * in the service's worker, and the chat is only an answerer — its messages and its yes/no
 * replies are stored and continued by the worker.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropDeploymentSchemas());

const refunds: string[] = [];
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  category: 'network',
  riskLevel: 'HIGH',
  parameters: z.object({ order: z.string() }),
  execute: async ({ order }) => {
    refunds.push(order);
    return `refunded ${order}`;
  },
});

/** Each message is answered; "refund <order>" proposes the refund first. */
const model = scriptedModel((request) => {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool') return `Done: ${last.content}`;
  const text = typeof last?.content === 'string' ? last.content : '';
  const order = /^refund (\S+)/.exec(text)?.[1];
  if (order === undefined) return `You said: ${text}`;
  return { text: 'Refunding.', toolCalls: [{ id: `refund-${order}`, name: 'refund', arguments: { order } }] };
});

const SUPPORT_CHAT: WorkflowDefinitionInput = {
  id: 'support-chat',
  name: 'Support chat',
  version: '1',
  config: { timeout: 0, maxSteps: 100, toolApproval: { autoApprovedTools: [], approvalTimeout: '10m' } },
  variables: [{ name: 'turns', scope: 'thread', default: [1, 2, 3, 4, 5, 6, 7, 8] }],
  nodes: [
    { id: 'start', type: 'START' },
    {
      id: 'conversation',
      type: 'LOOP',
      config: { items: 'turns', itemVariable: 'turn', body: 'listen', maxIterations: 8 },
    },
    {
      id: 'listen',
      type: 'USER_INTERACTION',
      config: {
        operationType: 'ADD_MESSAGE',
        prompt: 'Your message',
        timeout: 0,
        message: { role: 'user', contentTemplate: '{{ input }}' },
      },
    },
    { id: 'agent', type: 'LLM', config: { systemPrompt: 'Support agent.', tools: ['refund'], maxRounds: 4 } },
    { id: 'end', type: 'END' },
  ],
  edges: [
    { from: 'start', to: 'conversation' },
    { from: 'conversation', to: 'end' },
    { from: 'listen', to: 'agent' },
    { from: 'agent', to: 'conversation' },
  ],
};

type StoreName = 'PostgreSQL' | 'SQLite';

interface Entry {
  role: string;
  text: string;
}

/**
 * A deployment with a chat: a worker that runs the chat's agent, and a web server that
 * answers. `listenWhen` holds back the server's listening for store changes until it settles.
 */
async function chatDeployment({
  listenWhen,
  worker = true,
  on = 'PostgreSQL' as StoreName,
}: { listenWhen?: Promise<unknown>; worker?: boolean; on?: StoreName } = {}) {
  const shared =
    on === 'PostgreSQL'
      ? (await newDeployment()).store
      : { type: 'sqlite' as const, path: join(await mkdtemp(join(tmpdir(), 'interlock-chat-')), 'interlock.db') };
  const warnings: string[] = [];
  if (worker) {
    const running: InterlockWorker = await createWorker({
      store: shared,
      workflows: [SUPPORT_CHAT],
      tools: [refund],
      models: { default: model },
      pollMs: 100,
      onJobFailure: (job, error) => warnings.push(`worker: ${job.kind} job failed: ${String(error)}`),
    });
    closers.push(() => running.stop());
  }
  const token = createToken();
  const web = await createDeploymentInterlock({ store: shared, chatWorkflow: 'support-chat' });
  const store: ICheckpointStore = new Proxy(web.store, {
    get(target, property, receiver) {
      if (property !== 'watchChanges' || listenWhen === undefined) return Reflect.get(target, property, receiver);
      return async (...args: Parameters<NonNullable<ICheckpointStore['watchChanges']>>) => {
        await listenWhen;
        return target.watchChanges?.(...args);
      };
    },
  });
  const app = await createWebServer({
    interlock: web.interlock,
    store,
    approvers: [{ name: 'ada', tokenSha256: hashToken(token) }],
    workflows: web.workflows,
    ...(web.chat === undefined ? {} : { chat: web.chat }),
    expireDeadlines: false,
    pollInterval: 200,
  });
  web.followStore(app.liveUpdates, (message) => warnings.push(message));
  // What the worker and the chat could not do in the background is the first clue when a test here fails.
  onTestFailed(() => console.error(`the deployment's warnings: ${JSON.stringify(warnings)}`));
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  closers.push(
    () => web.close(),
    () => app.close(),
  );
  const transcript = async (chatId: string) =>
    (await api(baseUrl, token, `/api/chats/${chatId}/messages`)).body.entries as Entry[];
  /** Waits (15 s at most) for an agent's line in the chat that matches `pattern`. */
  const untilAgentSays = (chatId: string, pattern: RegExp) =>
    until(
      `the agent to say ${String(pattern)}`,
      () => transcript(chatId),
      (entries) => said(entries, 'assistant', pattern),
      15_000,
    );
  return { baseUrl, token, transcript, untilAgentSays, web, warnings };
}

const said = (entries: Entry[], role: string, pattern: RegExp) =>
  entries.some((entry) => entry.role === role && pattern.test(entry.text));

describe('the chat of a deployment (issue 12)', () => {
  it.each(['PostgreSQL', 'SQLite'] as const)(
    'runs its agent in a worker on %s: messages reach it, and a "yes" in the chat approves the refund, which runs in the worker',
    async (on) => {
      refunds.length = 0;
      const { baseUrl, token, transcript, untilAgentSays } = await chatDeployment({ on });

      // The chat's workflow is started from the chat, not from the page.
      expect((await api(baseUrl, token, '/api/workflows')).body.workflows).toEqual([]);
      const opened = await api(baseUrl, token, '/api/chats', {});
      expect(opened.status).toBe(201);
      const { chatId } = opened.body as { chatId: string };

      // Sent before the worker reached the question: queued, then given to the agent once it asks.
      await api(baseUrl, token, `/api/chats/${chatId}/messages`, { text: 'hello' });
      await untilAgentSays(chatId, /You said: hello/);

      await api(baseUrl, token, `/api/chats/${chatId}/messages`, { text: 'refund A-7' });
      await until(
        'the approval to show in the chat',
        () => transcript(chatId),
        (entries) => entries.some((entry) => entry.role === 'approval'),
        15_000,
      );
      expect(refunds).toEqual([]);
      const reply = await api(baseUrl, token, `/api/chats/${chatId}/messages`, { text: 'yes' });
      expect(reply.body.result).toMatchObject({ kind: 'approval', decision: 'approve' });
      await untilAgentSays(chatId, /Done: \[SUCCESS\] refunded A-7/);
      expect(refunds).toEqual(['A-7']);
    },
    60_000,
  );

  it('says no worker serves the chat when none does, instead of failing inside', async () => {
    const { baseUrl, token } = await chatDeployment({ worker: false });
    expect(await api(baseUrl, token, '/api/chats', {})).toMatchObject({
      status: 404,
      body: { code: 'WORKFLOW_NOT_FOUND', message: expect.stringContaining('no live worker serves') },
    });
  });

  it('gives a queued message to the agent even when the worker asked before the server listened for changes', async () => {
    // The server serves at once; its listening for store changes comes up only once the worker
    // asked for the chat's next message: a resync must catch it.
    let listen: () => void = () => undefined;
    const { baseUrl, token, untilAgentSays, web } = await chatDeployment({
      listenWhen: new Promise<void>((resolve) => (listen = resolve)),
    });
    // Closing waits for the listening to have begun.
    closers.push(async () => listen());
    const opened = await api(baseUrl, token, '/api/chats', {});
    expect(opened, JSON.stringify(opened.body)).toMatchObject({ status: 201 });
    const { chatId } = opened.body as { chatId: string };
    // Queued while the worker has not asked yet; on a slow machine the worker may have asked
    // already, and the message goes straight to its question: the agent gets it either way.
    const sent = (await api(baseUrl, token, `/api/chats/${chatId}/messages`, { text: 'hello' })).body.result;
    expect(sent).toMatchObject({ kind: 'agent', queued: expect.any(Boolean) });
    await until(
      "the worker to ask for the chat's next message",
      () => web.store.listInteractions({}),
      (asked) => asked.length > 0,
      15_000,
    );
    listen();
    await untilAgentSays(chatId, /You said: hello/);
  }, 60_000);

  it('gives a queued message to the agent on a later look when the store failed as the agent asked', async () => {
    const { baseUrl, token, transcript, untilAgentSays, web, warnings } = await chatDeployment();
    // The web server's answers fail (its database is unreachable) until the worker has asked
    // and every change it made was heard: no change to come would tell the chat to try again.
    const respond = web.interlock.respond.bind(web.interlock);
    let reachable = false;
    web.interlock.respond = (...args) =>
      reachable ? respond(...args) : Promise.reject(new InterlockError('STORE_UNAVAILABLE', 'connection refused'));
    const { chatId } = (await api(baseUrl, token, '/api/chats', {})).body as { chatId: string };
    await api(baseUrl, token, `/api/chats/${chatId}/messages`, { text: 'hello' });
    await until(
      'the failed delivery to be reported',
      async () => warnings,
      (seen) => seen.some((warning) => warning.includes('connection refused')),
      15_000,
    );
    // Tried again (the chat looks again now and then), and failed again: the message stays queued.
    await until(
      'the delivery to be tried again',
      async () => warnings,
      (seen) => seen.filter((warning) => warning.includes('connection refused')).length >= 2,
      15_000,
    );
    expect(said(await transcript(chatId), 'user', /hello/)).toBe(true);
    reachable = true;
    await untilAgentSays(chatId, /You said: hello/);
  }, 60_000);
});
