import { createInterlock, defineTool, type Interlock } from '@interlock/core';
import { scriptedModel, until } from '@interlock/core/testing';
import { remoteJwks, verifyReceipt } from '@interlock/receipts';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDeploymentInterlock } from '../src/deployment/deployment-interlock.js';
import { createWebServer } from '../src/server/create-web-server.js';
import { dropDeploymentSchemas, newDeployment, REFUND_WORKFLOW } from './deployment/deployment-harness.js';

/*
 * The JWKS of a deployment (F63): the process that runs the tools signs receipts with the
 * key kept in the store (PostgreSQL); interlock-web serves the public keys at
 * /.well-known/jwks.json, without a sign-in, and a service checks receipts against it; after
 * a rotation the previous key's receipts still verify.
 */
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => dropDeploymentSchemas());

describe('the JWKS interlock-web serves (F63)', () => {
  it('lets a service check the receipt a worker issued, before and after a rotation', async () => {
    const { store } = await newDeployment();
    const receipts: string[] = [];
    const refund = defineTool({
      name: 'refund',
      description: 'Refunds an order',
      category: 'write',
      riskLevel: 'HIGH',
      parameters: z.object({ orderId: z.string() }),
      execute: async (_args, context) => {
        if (context.receipt !== undefined) receipts.push(context.receipt);
        return 'refunded';
      },
    });
    // The team's service, running the tools.
    const service: Interlock = await createInterlock({
      store,
      tools: [refund],
      models: {
        default: scriptedModel([
          { text: '', toolCalls: [{ id: 'c1', name: 'refund', arguments: { orderId: 'A-42' } }] },
          'Refunded.',
        ]),
      },
    });
    closers.push(() => service.close());
    // The web inbox of the deployment, on the same store.
    const web = await createDeploymentInterlock({ store });
    closers.push(() => web.close());
    const app = await createWebServer({
      interlock: web.interlock,
      store: web.store,
      approvers: [],
      workflows: web.workflows,
      expireDeadlines: false,
    });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    closers.push(() => app.close());

    const thread = await service.start(service.registerWorkflow(REFUND_WORKFLOW), { channel: 'inbox' });
    expect((await thread.done()).status).toBe('waiting');
    const [question] = await service.pending();
    await service.respond(question!.interactionId, { approved: true }, { responder: 'web:ada' });
    await until(
      'the refund',
      () => receipts,
      (taken) => taken.length > 0,
    );

    const response = await fetch(`${baseUrl}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/jwk-set+json');
    const served = (await response.json()) as { keys: { kid: string; d?: string }[] };
    expect(served.keys).toHaveLength(1);
    expect(served.keys[0]?.d).toBeUndefined();
    const check = () =>
      verifyReceipt(receipts[0], {
        jwks: remoteJwks(`${baseUrl}/.well-known/jwks.json`),
        tool: 'refund',
        arguments: { orderId: 'A-42' },
      });
    await expect(check()).resolves.toMatchObject({ approvers: ['web:ada'], tool: 'refund' });

    // A rotation from the web side: the worker's receipt still verifies, and both keys are served.
    const { kid } = await web.interlock.receipts.keys.rotate();
    const after = (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(after.keys.map((key) => key.kid)).toEqual([served.keys[0]?.kid, kid]);
    await expect(check()).resolves.toMatchObject({ tool: 'refund' });
  });
});
