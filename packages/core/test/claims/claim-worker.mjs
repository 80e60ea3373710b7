// One process of the multi-process tests of issue 11 (packages/core/src/engine/multi-process.int.test.ts).
// It runs the BUILT package, as another process on the same database would, does one
// thing, prints what happened as one JSON line after CLAIM-WORKER-RESULT, and exits.
// It prints TOOL-STARTED <threadId> when the deploy tool starts its side effect.
//
// The config is JSON in CLAIM_WORKER_CONFIG:
//   store       { type: 'sqlite', path } | { type: 'postgres', url, schema }
//   ledger      a file outside the database: one line per real side effect of `deploy`
//   workflow    the workflow file to load
//   mode        start | resume | respond | roundTrips | startMany | answerAll | worker
//   continueIn  'workers': answers and starts schedule jobs (an answerer, or a service beside workers)
//   count       (startMany) how many threads to start, each left waiting for its approval
//   (worker)    runs createWorker on the workflow until SIGTERM; prints WORKER-READY, then
//               the ids of the threads it took forward as the result
//   threadId    the thread to start, resume or answer in
//   toolMs      how long `deploy` works after its side effect (default 0)
//   holdUntil   a file: `deploy` works, after toolMs, until the test creates it (a tool that
//               ends when the test says, not after a time the machine's speed may outrun)
//   effectLast  `deploy` works toolMs first, then, as a careful tool author does, checks its
//               signal and applies its effect last, writing its claim's fence into the ledger
//   returnOnAbort  (with effectLast) a tool that finds its signal aborted returns
//               "not deployed: aborted" instead of throwing, as a careless tool author's does
//   toolMsMax   (with effectLast) `deploy` works a random time up to this long instead of toolMs
//   calls       how many `deploy` calls the model proposes in its turn (default 1)
//   freezeMs    (with effectLast) after toolMs, `deploy` blocks the event loop this long (a
//               frozen process: no timer runs meanwhile), then lets the timers run before it
//               checks its signal
//   measureRenewals  reports `renewals`: how much of the claim was left when each renewal
//               was committed (ms), the smallest and the median
//   leaseMs     the claim's lease (default 15 000)
//   approve     (start, roundTrips) a handler approves every call at once; otherwise the thread waits
//   interactionId, answer   (respond)
//   count       (roundTrips) how many threads to take through an approval round trip
//   giveUpMs    (answerLoop) stops answering after this long and reports the threads still open
//   resumeStalled (answerLoop) also resumes, as a person at the terminal would, a thread a
//               killed process left behind: `running`, or waiting on an answer it had not
//               applied, with its claim ended
import { appendFileSync, existsSync } from 'node:fs';
import { z } from 'zod';
import { createInterlock, createWorker, defineTool, openStore, scriptedModel } from '../../dist/index.js';

const config = JSON.parse(process.env.CLAIM_WORKER_CONFIG ?? '{}');

/** Not idempotent: every run deploys again, and the ledger says so. */
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys the service to production',
  category: 'execute',
  riskLevel: 'HIGH',
  parameters: z.object({ target: z.string() }),
  execute: async ({ target }, context) => {
    if (config.effectLast) {
      process.stdout.write(`TOOL-STARTED ${context.threadId}\n`);
      const toolMs = config.toolMsMax === undefined ? (config.toolMs ?? 0) : Math.random() * config.toolMsMax;
      await new Promise((resolve) => setTimeout(resolve, toolMs));
      if (config.freezeMs !== undefined) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, config.freezeMs);
        process.stdout.write(`TOOL-THAWED ${context.threadId}\n`);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      if (config.returnOnAbort && context.signal.aborted) return `not deployed: aborted`;
      context.signal.throwIfAborted();
      const { threadId, epoch } = context.fence;
      appendFileSync(config.ledger, `deployed ${threadId} ${context.toolCallId} ${target} fence=${epoch}\n`);
      return `deployed ${target}`;
    }
    appendFileSync(config.ledger, `deployed ${context.threadId} ${context.toolCallId} ${target}\n`);
    process.stdout.write(`TOOL-STARTED ${context.threadId}\n`);
    await new Promise((resolve) => setTimeout(resolve, config.toolMs ?? 0));
    while (config.holdUntil !== undefined && !existsSync(config.holdUntil))
      await new Promise((resolve) => setTimeout(resolve, 20));
    return `deployed ${target}`;
  },
});

const model = scriptedModel((request) => {
  if (request.messages.some((message) => message.role === 'tool')) return 'Deployed.';
  const calls = Array.from({ length: config.calls ?? 1 }, (_, index) => ({
    id: `deploy-${index + 1}`,
    name: 'deploy',
    arguments: { target: index === 0 ? 'production' : `production-${index + 1}` },
  }));
  return { text: 'Deploying.', toolCalls: calls };
});

const approver = {
  handle: async (request) =>
    request.toolApproval?.stage === 'recovery'
      ? { outcome: 'deferred' }
      : { outcome: 'responded', input: { approved: true }, responder: `worker-${process.pid}` },
};

const shellClassifier = { classify: () => ({ verdict: 'safe', rule: 'shell:safe', reasons: [] }) };

function describeError(error) {
  return {
    code: typeof error?.code === 'string' ? error.code : 'UNCAUGHT',
    message: error instanceof Error ? error.message : String(error),
  };
}

async function run(interlock) {
  const workflow = await interlock.loadWorkflow(config.workflow);
  const channel = config.approve ? 'auto' : 'inbox';
  switch (config.mode) {
    case 'start':
      return { outcome: await (await interlock.start(workflow, { threadId: config.threadId, channel })).done() };
    case 'resume':
      return { outcome: await (await interlock.resume(config.threadId)).done() };
    case 'respond': {
      const result = await interlock.respond(config.interactionId, config.answer, { responder: 'other-process' });
      const outcome = result.status === 'accepted' ? await result.thread?.done() : undefined;
      return { result: { ...result, thread: undefined }, outcome };
    }
    case 'startMany': {
      const threadIds = [];
      for (let index = 0; index < config.count; index += 1) {
        const outcome = await (await interlock.start(workflow, { channel: 'inbox' })).done();
        threadIds.push(outcome.threadId);
      }
      return { threadIds };
    }
    case 'answerAll': {
      const results = [];
      for (const request of await interlock.pending()) {
        const result = await interlock.respond(request.interactionId, config.answer ?? { approved: true }, {
          responder: 'answerer',
        });
        results.push(result.status === 'accepted' ? result.continuation.status : result.status);
      }
      return { results };
    }
    case 'answerLoop': {
      // A person at an inbox until every thread ended: approves each call; for a call whose
      // outcome is unknown (its worker died while it ran) says `done` when the ledger shows it ran.
      const { readFileSync, existsSync } = await import('node:fs');
      const ledger = () => (existsSync(config.ledger) ? readFileSync(config.ledger, 'utf8') : '');
      const counts = {};
      const giveUpAt = Date.now() + (config.giveUpMs ?? 600_000);
      for (;;) {
        const open = (await interlock.threads()).filter(
          (thread) => thread.status === 'waiting' || thread.status === 'running',
        );
        if (open.length === 0) return { counts };
        if (Date.now() > giveUpAt) {
          const stuck = open.slice(0, 20).map((thread) => ({
            threadId: thread.threadId,
            status: thread.status,
            pending: thread.pendingInteractionIds,
            lease: thread.lease,
          }));
          return { counts, error: { code: 'TIMEOUT', message: `${open.length} threads still open` }, stuck };
        }
        if (config.resumeStalled) {
          // Left behind by a killed process: running, or waiting on a question no longer pending
          // (answered there, and not yet applied). A person at the terminal resumes it.
          const now = Date.now();
          const asked = new Set((await interlock.pending()).map((request) => request.interactionId));
          for (const thread of open) {
            if (thread.lease !== undefined && Date.parse(thread.lease.until) > now) continue;
            const stalled = thread.status === 'running' || thread.pendingInteractionIds.some((id) => !asked.has(id));
            if (!stalled) continue;
            const resumed = await interlock.resume(thread.threadId).then(
              () => 'resumed',
              (error) => `resume:${error.code}`,
            );
            counts[resumed] = (counts[resumed] ?? 0) + 1;
          }
        }
        for (const request of await interlock.pending()) {
          const approval = request.toolApproval;
          const ran =
            approval?.stage === 'recovery' && ledger().includes(`deployed ${request.threadId} ${approval.toolCallId} `);
          const input = approval?.stage === 'recovery' ? (ran ? 'done' : 'retry') : { approved: true };
          const result = await interlock
            .respond(request.interactionId, input, { responder: 'answerer' })
            .catch((error) => ({ status: error.code }));
          const name = approval?.stage === 'recovery' ? `recovery:${input}` : result.status;
          counts[name] = (counts[name] ?? 0) + 1;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    case 'roundTrips': {
      const failures = [];
      let completed = 0;
      for (let index = 0; index < config.count; index += 1) {
        try {
          const outcome = await (await interlock.start(workflow, { channel })).done();
          if (outcome.status === 'completed') completed += 1;
          else failures.push(outcome.status === 'failed' ? outcome.error : { code: outcome.status });
        } catch (error) {
          failures.push(describeError(error));
        }
      }
      return { completed, failures };
    }
    default:
      throw new Error(`unknown mode ${JSON.stringify(config.mode)}`);
  }
}

if (config.mode === 'worker') {
  const worker = await createWorker({
    store: config.store,
    workflows: [config.workflow],
    models: { default: model },
    tools: [deploy],
    shellClassifier,
    concurrency: config.concurrency ?? 4,
    ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
  });
  const threads = new Set();
  worker.interlock.events$.subscribe((event) => {
    if (event.type === 'THREAD_RESUMED') threads.add(event.threadId);
  });
  process.stdout.write('WORKER-READY\n');
  await new Promise((resolve) => process.once('SIGTERM', resolve));
  await worker.stop();
  process.stdout.write(`CLAIM-WORKER-RESULT ${JSON.stringify({ threads: [...threads] })}\n`);
  process.exit(0);
}

/**
 * The store, measured: for each renewal of a claim, how long the claim it renewed still had
 * to run when the renewal came back committed (the margin a busy process or a commit queue
 * eats into).
 */
const margins = [];
async function measuredStore() {
  const store = await openStore(config.store);
  const until = new Map();
  const commit = store.commit.bind(store);
  store.commit = async (unit) => {
    const result = await commit(unit);
    const change = unit.thread;
    if (result.status !== 'committed' || change === undefined) return result;
    const threadId = change.kind === 'create' || change.kind === 'save' ? change.thread.threadId : change.threadId;
    if (change.kind === 'renew' && until.has(threadId)) margins.push(Date.parse(until.get(threadId)) - Date.now());
    const lease = change.kind === 'renew' ? { until: change.until } : result.thread?.lease;
    if (lease === undefined) until.delete(threadId);
    else until.set(threadId, lease.until);
    return result;
  };
  return { type: 'custom', store };
}

function renewals() {
  const sorted = [...margins].sort((a, b) => a - b);
  return {
    count: sorted.length,
    smallestMs: sorted[0] ?? null,
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? null,
  };
}

const interlock = await createInterlock({
  store: config.measureRenewals ? await measuredStore() : config.store,
  ...(config.continueIn === undefined ? {} : { continueIn: config.continueIn }),
  models: { default: model },
  tools: [deploy],
  handlers: { auto: approver },
  shellClassifier,
  ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
});
let result;
try {
  result = await run(interlock);
} catch (error) {
  result = { error: describeError(error) };
}
await interlock.close().catch(() => undefined);
if (config.measureRenewals) result = { ...result, renewals: renewals() };
process.stdout.write(`CLAIM-WORKER-RESULT ${JSON.stringify(result)}\n`);
