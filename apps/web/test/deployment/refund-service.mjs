// A team's service in a deployment (issue 12): it holds the `refund` tool and the model,
// and runs the built @interlock/core. Tests in ../deployment.e2e.test.ts.
//
// SERVICE_CONFIG (JSON): { store, ledger, workflow, mode: 'worker' | 'start', count, leaseMs, concurrency }
//   worker  createWorker until SIGTERM; prints SERVICE-READY, then SERVICE-RESULT {"threads": [...]}
//           (the threads it took forward)
//   start   starts `count` threads (continueIn 'workers'): each runs until its refund waits for
//           an approver; prints SERVICE-RESULT {"threadIds": [...]}
import { appendFileSync } from 'node:fs';
import { z } from 'zod';
import { createInterlock, createWorker, defineTool, scriptedModel } from '@interlock/core';

const config = JSON.parse(process.env.SERVICE_CONFIG ?? '{}');

/** Not idempotent: every run pays out again, and the ledger (outside the database) says so. */
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order to the customer',
  category: 'network',
  riskLevel: 'HIGH',
  parameters: z.object({ order: z.string(), cents: z.number().int() }),
  execute: async ({ order, cents }, context) => {
    appendFileSync(config.ledger, `refunded ${context.threadId} ${context.toolCallId} ${order} ${cents}\n`);
    await new Promise((resolve) => setTimeout(resolve, config.toolMs ?? 20));
    return `refunded ${cents} cents on ${order}`;
  },
});

const model = scriptedModel((request) => {
  if (request.messages.some((message) => message.role === 'tool')) return 'Refunded.';
  return {
    text: 'Refunding.',
    toolCalls: [{ id: 'refund-1', name: 'refund', arguments: { order: 'A-1', cents: 1299 } }],
  };
});

const common = {
  store: config.store,
  models: { default: model },
  tools: [refund],
  ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
};

if (config.mode === 'worker') {
  const worker = await createWorker({ ...common, workflows: [config.workflow], concurrency: config.concurrency ?? 4 });
  const threads = new Set();
  worker.interlock.events$.subscribe((event) => {
    if (event.type === 'THREAD_RESUMED' || event.type === 'THREAD_STARTED') threads.add(event.threadId);
  });
  process.stdout.write('SERVICE-READY\n');
  await new Promise((resolve) => process.once('SIGTERM', resolve));
  await worker.stop();
  process.stdout.write(`SERVICE-RESULT ${JSON.stringify({ threads: [...threads] })}\n`);
  process.exit(0);
}

const interlock = await createInterlock({ ...common, continueIn: 'workers' });
const workflow = await interlock.loadWorkflow(config.workflow);
const threadIds = [];
for (let index = 0; index < config.count; index += 1) {
  const outcome = await (await interlock.start(workflow, { channel: 'web' })).done();
  if (outcome.status !== 'waiting')
    throw new Error(`thread ${outcome.threadId} did not wait: ${JSON.stringify(outcome)}`);
  threadIds.push(outcome.threadId);
}
await interlock.close();
process.stdout.write(`SERVICE-RESULT ${JSON.stringify({ threadIds })}\n`);
