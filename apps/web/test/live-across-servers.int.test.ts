import { createInterlock, defineTool, scriptedModel, type Interlock } from '@interlock/core';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createToken, hashToken } from '../src/server/auth/approvers.js';
import { createWebServer } from '../src/server/create-web-server.js';
import { createDeploymentInterlock, type DeploymentInterlock } from '../src/deployment/deployment-interlock.js';
import { api, dropDeploymentSchemas, newDeployment, REFUND_WORKFLOW } from './deployment/deployment-harness.js';
import { z } from 'zod';

/*
 * Several web servers behind one PostgreSQL show the same inbox, live (issue 12): a change
 * made through one is heard by the others by LISTEN/NOTIFY, with no look at the store.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropDeploymentSchemas());

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order',
  category: 'network',
  riskLevel: 'HIGH',
  parameters: z.object({ order: z.string(), cents: z.number().int() }),
  execute: async ({ cents }) => `refunded ${cents}`,
});

async function webServer(
  store: { type: 'postgres'; url: string; schema: string },
  token: string,
): Promise<{ web: DeploymentInterlock; app: FastifyInstance; baseUrl: string }> {
  const web = await createDeploymentInterlock({ store });
  const app = await createWebServer({
    interlock: web.interlock,
    store: web.store,
    approvers: [{ name: 'ada', tokenSha256: hashToken(token) }],
    workflows: web.workflows,
    expireDeadlines: false,
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  closers.push(
    () => web.close(),
    () => app.close(),
  );
  return { web, app, baseUrl };
}

/**
 * Opens a server's event stream; `change` resolves with the first change that matches, or
 * fails after `timeoutMs`; `connected` once the server answered the request for the stream.
 */
function heard(
  baseUrl: string,
  token: string,
  matches: (change: Record<string, unknown>) => boolean,
  timeoutMs: number,
): { connected: Promise<void>; change: Promise<Record<string, unknown>> } {
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]);
  const response = fetch(`${baseUrl}/api/events`, { headers: { authorization: `Bearer ${token}` }, signal });
  const change = (async () => {
    try {
      const reader = ((await response).body as ReadableStream<Uint8Array>)
        .pipeThrough(new TextDecoderStream())
        .getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the event stream ended');
        text += value;
        for (const line of text.split('\n')) {
          if (!line.startsWith('data: ')) continue;
          const found = JSON.parse(line.slice('data: '.length)) as Record<string, unknown>;
          if (matches(found)) return found;
        }
      }
    } finally {
      controller.abort();
    }
  })();
  return { connected: response.then(() => undefined), change };
}

describe('web servers behind one PostgreSQL (issue 12)', () => {
  it('hear an answer given through another server at once, and all show the same inbox', async () => {
    const deployment = await newDeployment();
    const token = createToken();
    // The team's service starts a thread that waits for an approver.
    const service: Interlock = await createInterlock({
      store: deployment.store,
      continueIn: 'workers',
      tools: [refund],
      models: {
        default: scriptedModel(() => ({
          text: 'Refunding.',
          toolCalls: [{ id: 'r-1', name: 'refund', arguments: { order: 'A-1', cents: 5 } }],
        })),
      },
    });
    closers.push(() => service.close());
    const outcome = await (await service.start(service.registerWorkflow(REFUND_WORKFLOW), { channel: 'web' })).done();
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'waiting' });

    const first = await webServer(deployment.store, token);
    const second = await webServer(deployment.store, token);
    const [onFirst, onSecond] = await Promise.all([
      api(first.baseUrl, token, '/api/interactions'),
      api(second.baseUrl, token, '/api/interactions'),
    ]);
    expect(onSecond.body.interactions.map((card: { interactionId: string }) => card.interactionId)).toEqual(
      onFirst.body.interactions.map((card: { interactionId: string }) => card.interactionId),
    );
    const [{ interactionId }] = onFirst.body.interactions as [{ interactionId: string }];

    const answeredElsewhere = heard(
      second.baseUrl,
      token,
      (change) => change['interactionId'] === interactionId && change['reason'] === 'answered',
      15_000,
    );
    await answeredElsewhere.connected;
    // A server serves before it listens (what changed meanwhile is read again, but not as
    // "answered"): the answer is given once the second one hears the store.
    await second.app.liveUpdates.listening();
    expect(
      (await api(first.baseUrl, token, `/api/interactions/${interactionId}/respond`, { action: 'approve' })).status,
    ).toBe(200);
    // A deployment's server never looks at the store by itself: only the notification can tell it.
    expect(await answeredElsewhere.change).toMatchObject({ kind: 'interaction', reason: 'answered', interactionId });
    expect((await api(second.baseUrl, token, '/api/interactions')).body.interactions).toEqual([]);
  }, 30_000);
});
