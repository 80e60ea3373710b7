// One process of Interlock's crash tests (packages/core/src/crash/crash-recovery.int.test.ts).
// It opens the store, does one thing a person or a server would do, prints what happened as
// one JSON line, and exits; or it dies by SIGKILL at the failpoint INTERLOCK_CRASH_AT names.
// It runs the BUILT package, as another process on the same database would. On stdout it
// says CRASH-WORKER-WORKING when it starts on its queue (auto), CRASH-WORKER-READY when it
// waits for go, CRASH-WORKER-CLAIMED when it has claimed a thread to resume it, and last
// CRASH-WORKER-RESULT followed by the JSON of what happened.
//
// The config is JSON in CRASH_WORKER_CONFIG:
//   store       { type: 'sqlite', path } | { type: 'postgres', url, schema }
//   workspace   the tools' workspace root
//   witness     a file outside the database where `charge` and `lookup` write their effects
//   modelCalls  a file where the model writes one line per call it gets
//   mode        start | resume | person | auto
//   threadId    the thread to start (start) or take forward (resume, person)
//   answers     (start) what the person answers, in order, to the questions the thread asks
//   threadIds   the queue of threads to start or take forward (auto), on the channel `auto`
//               whose handler answers everything
//   waitForGo   (resume) print READY and resume only when a line arrives on stdin, so two
//               processes can be made to resume at the same moment
//   person      (person) { note, recovery: 'done' | 'retry', repeatAnswers: [interactionId] }
//   killAfterStoreCall   `<method>:<n>`: SIGKILL right after the n-th call of that store method
//               returned, for windows between two writes that have no failpoint of their own;
//               `commit.opens:<n>`: after the n-th commit that stores a new question
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { createInterlock, defineTool, openStore as openCoreStore, scriptedModel } from '../../dist/index.js';

const RESULT_PREFIX = 'CRASH-WORKER-RESULT ';
const WORKFLOW_ID = 'crash-payments';

const config = JSON.parse(process.env.CRASH_WORKER_CONFIG ?? '{}');

/** Appends one line and forces it to disk: the line survives a SIGKILL right after. */
function appendDurably(path, line) {
  const descriptor = openSync(path, 'a');
  try {
    writeSync(descriptor, `${line}\n`);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

function witnessLines() {
  return existsSync(config.witness) ? readFileSync(config.witness, 'utf8').split('\n').filter(Boolean) : [];
}

/** Not idempotent: every run charges the card again. */
const charge = defineTool({
  name: 'charge',
  description: 'Charges the card on file',
  category: 'write',
  riskLevel: 'HIGH',
  parameters: z.object({ amount: z.number() }),
  execute: async ({ amount }, context) => {
    appendDurably(config.witness, `charged ${context.threadId} ${context.toolCallId} ${amount}`);
    return `charged ${amount}`;
  },
});

/** Idempotent and read-only: runs without asking, and may run again after a crash. */
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up the customer',
  category: 'read',
  riskLevel: 'LOW',
  idempotent: true,
  parameters: z.object({ customer: z.string() }),
  execute: async ({ customer }, context) => {
    appendDurably(config.witness, `looked-up ${context.threadId} ${context.toolCallId} ${customer}`);
    return `${customer} is in good standing`;
  },
});

/** Proposes one charge (asks a person) and one lookup (runs at once); answers in text once it has their results. */
const model = scriptedModel((request) => {
  appendDurably(config.modelCalls, `model-call ${request.threadId}`);
  if (request.messages.some((message) => message.role === 'tool')) return 'Charged and looked up.';
  return {
    text: 'Charging the card and looking up the customer.',
    toolCalls: [
      { id: 'charge-1', name: 'charge', arguments: { amount: 42 } },
      { id: 'lookup-1', name: 'lookup', arguments: { customer: 'ada' } },
    ],
  };
});

/** START → agent (LLM with charge and lookup) → confirm (a person writes a note) → END. */
const definition = {
  id: WORKFLOW_ID,
  name: 'Crash payments',
  version: '1',
  config: { toolApproval: { autoApprovedTools: [], approvalTimeout: '1h' } },
  variables: [
    { name: 'summary', scope: 'thread' },
    { name: 'output', scope: 'thread' },
  ],
  nodes: [
    { id: 'start', type: 'START' },
    { id: 'agent', type: 'LLM', config: { tools: ['charge', 'lookup'], outputVariable: 'summary' } },
    {
      id: 'confirm',
      type: 'USER_INTERACTION',
      config: {
        operationType: 'UPDATE_VARIABLES',
        prompt: 'A note for the receipt?',
        variables: [{ variableName: 'output', expression: '{{ input }}' }],
      },
    },
    { id: 'end', type: 'END', config: { output: '{{ output }}' } },
  ],
  edges: [
    { from: 'start', to: 'agent' },
    { from: 'agent', to: 'confirm' },
    { from: 'confirm', to: 'end' },
  ],
};

// A claim its process cannot renew before its end is lost, even if nobody else took the
// thread (issue 35): long enough that a busy test machine's stalls do not end it.
const LEASE_MS = 1_000;

/** A thread a killed process was asking about is free once that process's lease runs out. */
async function resumeWhenFree(interlock, threadId) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await interlock.resume(threadId);
    } catch (error) {
      if (error?.code !== 'THREAD_BUSY' || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    }
  }
}

/**
 * The `auto` channel's person: approves every call, writes `auto note` as the note, and
 * for a call whose outcome is unknown looks at the witness (the card statement): `done`
 * when the charge is there, `retry` when it is not.
 */
const autoHandler = {
  async handle(request) {
    const approval = request.toolApproval;
    if (!approval) return { outcome: 'responded', input: 'auto note', responder: 'auto' };
    if (approval.stage === 'recovery') {
      const ran = witnessLines().some((line) => line.startsWith(`charged ${request.threadId} ${approval.toolCallId} `));
      return { outcome: 'responded', input: ran ? 'done' : 'retry', responder: 'auto' };
    }
    return { outcome: 'responded', input: { approved: true }, responder: 'auto' };
  },
};

/** A classifier that never loads tree-sitter: no shell tool is offered here. */
const shellClassifier = { classify: () => ({ verdict: 'safe', rule: 'shell:safe', reasons: [] }) };

function summarise(event) {
  const summary = { type: event.type };
  for (const key of ['nodeId', 'toolCallId', 'interactionId', 'status', 'reason']) {
    if (event[key] !== undefined) summary[key] = event[key];
  }
  return summary;
}

function describeError(error) {
  return {
    code: typeof error?.code === 'string' ? error.code : 'UNCAUGHT',
    message: error instanceof Error ? error.message : String(error),
  };
}

async function run(interlock) {
  switch (config.mode) {
    case 'start': {
      // A person at the keyboard: starts the thread, then answers what it asks, in order, as it asks.
      const workflow = interlock.registerWorkflow(definition);
      let outcome = await (await interlock.start(workflow, { threadId: config.threadId, channel: 'inbox' })).done();
      for (const input of config.answers ?? []) {
        const [request] = (await interlock.pending()).filter((candidate) => candidate.threadId === config.threadId);
        if (outcome.status !== 'waiting' || request === undefined) break;
        const answer = await interlock.respond(request.interactionId, input, { responder: 'person' });
        if (answer.status === 'accepted' && answer.thread) outcome = await answer.thread.done();
      }
      return { outcome };
    }
    case 'resume': {
      if (config.waitForGo) await readyThenGo();
      const thread = await interlock.resume(config.threadId);
      return { outcome: await thread.done() };
    }
    case 'person':
      return actLikeAPerson(interlock);
    case 'auto':
      return workThroughQueue(interlock);
    default:
      throw new Error(`unknown mode ${JSON.stringify(config.mode)}`);
  }
}

/**
 * A server working through a queue of payment jobs, one thread each, answered by the `auto`
 * person: a job not in the store yet is started, one that waits or was interrupted is taken
 * on from the store, one that ended is left alone.
 */
async function workThroughQueue(interlock) {
  interlock.registerWorkflow(definition);
  process.stdout.write('CRASH-WORKER-WORKING\n');
  const stored = new Map((await interlock.threads()).map((thread) => [thread.threadId, thread.status]));
  const outcomes = [];
  for (const threadId of config.threadIds) {
    const status = stored.get(threadId);
    try {
      if (status === undefined) {
        outcomes.push(await (await interlock.start(WORKFLOW_ID, { threadId, channel: 'auto' })).done());
      } else if (status === 'waiting' || status === 'running') {
        outcomes.push(await (await resumeWhenFree(interlock, threadId)).done());
      } else {
        outcomes.push({ status, threadId });
      }
    } catch (error) {
      outcomes.push({ status: 'error', threadId, error: describeError(error) });
    }
  }
  return { outcomes };
}

/** Says it is ready, then waits for the test to say go (one line on stdin). */
function readyThenGo() {
  process.stdout.write('CRASH-WORKER-READY\n');
  return new Promise((resolve) => {
    process.stdin.once('data', () => {
      process.stdin.pause();
      resolve();
    });
  });
}

/** What a person answers: approves the call, writes the note, and says what became of a call whose outcome is unknown. */
function answerFor(request) {
  const approval = request.toolApproval;
  if (!approval) return config.person?.note ?? 'a note';
  if (approval.stage === 'recovery') return config.person?.recovery ?? 'done';
  return { approved: true };
}

/**
 * Takes the thread to its end the way a person at a terminal would: answers again, differently,
 * what was answered before the crash (expecting `already_answered`: the same answer again
 * would be a safe retry, accepted), then, until the thread ends,
 * answers what waits, or resumes it when nothing waits. Every step is reported, with the
 * witness as it was before the step.
 */
async function actLikeAPerson(interlock) {
  const repeated = [];
  for (const interactionId of config.person?.repeatAnswers ?? []) {
    try {
      const answer = await interlock.respond(interactionId, 'no', { responder: 'second-click' });
      repeated.push({ interactionId, status: answer.status });
    } catch (error) {
      repeated.push({ interactionId, error: describeError(error) });
    }
  }
  const steps = [];
  for (let step = 0; step < 8; step += 1) {
    const thread = (await interlock.threads()).find((candidate) => candidate.threadId === config.threadId);
    if (thread === undefined || (thread.status !== 'waiting' && thread.status !== 'running')) break;
    const witnessBefore = witnessLines();
    const [request] = (await interlock.pending()).filter((candidate) => candidate.threadId === config.threadId);
    try {
      if (request === undefined) {
        // The killed process's claim may still hold the thread for up to a lease.
        const outcome = await (await resumeWhenFree(interlock, config.threadId)).done();
        steps.push({ action: 'resume', witnessBefore, outcome });
        continue;
      }
      const input = answerFor(request);
      const answer = await interlock.respond(request.interactionId, input, { responder: 'person' });
      const outcome = answer.status === 'accepted' && answer.thread ? await answer.thread.done() : undefined;
      steps.push({
        action: 'respond',
        witnessBefore,
        interactionId: request.interactionId,
        operationType: request.operationType,
        ...(request.toolApproval
          ? { toolCallId: request.toolApproval.toolCallId, stage: request.toolApproval.stage }
          : {}),
        input,
        status: answer.status,
        ...(outcome ? { outcome } : {}),
      });
    } catch (error) {
      steps.push({ action: request === undefined ? 'resume' : 'respond', witnessBefore, error: describeError(error) });
      break;
    }
  }
  const thread = (await interlock.threads()).find((candidate) => candidate.threadId === config.threadId);
  return {
    repeated,
    steps,
    final: thread === undefined ? undefined : { status: thread.status, output: thread.output },
  };
}

/**
 * The store, or the store wrapped to die right after the n-th call of one of its methods
 * (its commit returned: the write is durable).
 */
async function openStore() {
  if (config.killAfterStoreCall === undefined) return config.store;
  const [name, nth = '1'] = config.killAfterStoreCall.split(':');
  const [method, only] = name.split('.');
  const counts =
    only !== 'opens' ? () => true : (unit) => (unit?.interactions ?? []).some((change) => change.kind === 'open');
  const store = await openCoreStore(config.store);
  let calls = 0;
  const wrapped = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== method) return value.bind(target);
      return async (...args) => {
        const result = await value.apply(target, args);
        if (!counts(args[0])) return result;
        calls += 1;
        if (calls === Number(nth)) process.kill(process.pid, 'SIGKILL');
        return result;
      };
    },
  });
  return { type: 'custom', store: wrapped };
}

async function main() {
  const interlock = await createInterlock({
    store: await openStore(),
    models: { default: model },
    tools: [charge, lookup],
    handlers: { auto: autoHandler },
    // A killed process's lease on a thread it was asking about holds this long.
    leaseMs: LEASE_MS,
    workspaceRoot: config.workspace,
    shellClassifier,
  });
  const events = [];
  interlock.events$.subscribe((event) => {
    if (event.type !== 'LLM_TEXT_DELTA') events.push(summarise(event));
    // The claim is stored before THREAD_RESUMED: another process can now try to take the thread too.
    if (event.type === 'THREAD_RESUMED') process.stdout.write('CRASH-WORKER-CLAIMED\n');
  });
  let result;
  try {
    result = await run(interlock);
  } catch (error) {
    result = { error: describeError(error) };
  }
  await interlock.close();
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ ...result, events })}\n`);
}

main().catch((error) => {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify({ error: describeError(error), events: [] })}\n`);
  process.exitCode = 1;
});
