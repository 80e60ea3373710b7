import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createInterlock } from '../interlock.js';
import { firstValueFrom, filter } from 'rxjs';
import { continuationThreadId, type ApprovalGate, type GatePause } from './approval-gate.js';
import { createApprovalGate } from './create-approval-gate.js';

const tools = {
  read_file: { category: 'read' as const, riskLevel: 'LOW' as const },
  write_file: {
    category: 'write' as const,
    riskLevel: 'MEDIUM' as const,
    pathArgument: 'path',
    jsonSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  bash: { category: 'command' as const, riskLevel: 'HIGH' as const, commandArgument: 'command' },
};

let gate: ApprovalGate | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await gate?.close();
  gate = undefined;
});

/** A clock the test moves: the gate's deadlines and the answers' times are read from it. */
function movableClock(start = Date.parse('2026-11-26T09:00:00Z')) {
  let now = start;
  return { clock: { now: () => now }, advance: (ms: number) => (now += ms) };
}

/** A gate whose continuation reports each pause it continues. */
async function timedGate(options: { clock: { now(): number }; approvalTimeoutMs?: number }) {
  let continued: (pause: GatePause) => void = () => undefined;
  const continuation = new Promise<GatePause>((resolve) => (continued = resolve));
  gate = await createApprovalGate({
    name: 'timed-agent',
    tools,
    clock: options.clock,
    ...(options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs }),
    continuation: async (pause) => continued(pause),
  });
  return { gate, continuation };
}

const WRITE = [{ toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }];

async function gateWithContinuation() {
  const continued: GatePause[] = [];
  let notify: (() => void) | undefined;
  gate = await createApprovalGate({
    name: 'test-agent',
    tools,
    continuation: async (pause) => {
      continued.push(pause);
      notify?.();
      return { resumed: pause.pauseId };
    },
  });
  const next = () => new Promise<void>((resolve) => (notify = resolve));
  return { gate, continued, next };
}

describe('approval gate (F56)', () => {
  it('decides a read and a banned command at once and audits both (F56, F25, F33)', async () => {
    const { gate } = await gateWithContinuation();
    const outcome = await gate.decide(
      [
        { toolCallId: 'c1', toolName: 'read_file', arguments: { path: 'README.md' } },
        { toolCallId: 'c2', toolName: 'bash', arguments: { command: 'rm -rf /' } },
      ],
      { state: () => 'never stored' },
    );
    expect(outcome.status).toBe('decided');
    expect(outcome.decisions).toMatchObject([
      { toolCallId: 'c1', status: 'approved', arguments: { path: 'README.md' }, decidedBy: 'category:read' },
      { toolCallId: 'c2', status: 'rejected', decidedBy: expect.stringMatching(/^shell:banned/) },
    ]);
    expect(await gate.interlock.pending()).toEqual([]);
    // Each call is decided in its own thread, concurrently: the log holds them in the order they were decided.
    const audited = await gate.interlock.audit();
    expect(audited.map((entry) => [entry.toolName, entry.outcome]).sort()).toEqual([
      ['bash', 'deny'],
      ['read_file', 'allow'],
    ]);
    expect(await gate.interlock.verifyAudit()).toMatchObject({ valid: true });
  });

  it('pauses on a write, stores the state beside it and continues once with the edited arguments (F56, F19, F40)', async () => {
    const { gate, continued, next } = await gateWithContinuation();
    const outcome = await gate.decide(
      [
        { toolCallId: 'c1', toolName: 'read_file', arguments: { path: 'a' } },
        { toolCallId: 'c2', toolName: 'write_file', arguments: { path: 'notes.md', content: 'draft' } },
      ],
      { state: () => '{"turn":3}', session: { sessionId: 's1' } },
    );
    expect(outcome).toMatchObject({ status: 'paused', decisions: [{ status: 'approved' }, { status: 'pending' }] });
    const [question] = await gate.interlock.pending();
    expect(question?.toolApproval?.toolName).toBe('write_file');
    const refused = await gate.interlock.checkResponse(question!.interactionId, {
      approved: true,
      editedParameters: { path: 'notes.md', content: 1 },
    });
    expect(refused.ok).toBe(false);
    const done = next();
    const finished = firstValueFrom(
      gate.interlock.events$.pipe(
        filter(
          (event) =>
            event.type === 'THREAD_COMPLETED' &&
            outcome.status === 'paused' &&
            event.threadId === continuationThreadId(outcome.pauseId),
        ),
      ),
    );
    await gate.interlock.respond(
      question!.interactionId,
      { approved: true, editedParameters: { path: 'notes.md', content: 'final' }, userInstruction: 'keep it short' },
      { responder: 'ada' },
    );
    await done;
    await finished;
    expect(continued).toHaveLength(1);
    expect(continued[0]).toMatchObject({
      state: '{"turn":3}',
      session: { sessionId: 's1' },
      decisions: [
        { toolCallId: 'c1', status: 'approved' },
        {
          toolCallId: 'c2',
          status: 'approved',
          arguments: { path: 'notes.md', content: 'final' },
          edited: true,
          instruction: 'keep it short',
          responder: 'ada',
          decidedBy: 'person',
        },
      ],
    });
    expect(outcome.status === 'paused' && (await gate.continued(outcome.pauseId))).toMatchObject({
      status: 'completed',
    });
  });

  it('hands a rejection and its reason to the continuation (F56, F14)', async () => {
    const { gate, continued, next } = await gateWithContinuation();
    await gate.decide([{ toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'x', content: 'y' } }], {
      state: () => 'state',
    });
    const [question] = await gate.interlock.pending();
    const done = next();
    await gate.interlock.respond(question!.interactionId, { approved: false, denyReason: 'not that file' });
    await done;
    expect(continued[0]?.decisions).toMatchObject([
      { status: 'rejected', decidedBy: 'person', reason: expect.stringContaining('not that file') },
    ]);
  });

  it('waits for the answer when no state is given, and cancels the question when the agent gives up (F56, F10)', async () => {
    const { gate } = await gateWithContinuation();
    const waiting = gate.decide([{ toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'x', content: 'y' } }]);
    const question = await new Promise<string>((resolve) => {
      const look = () =>
        void gate.interlock.pending().then(([first]) => (first ? resolve(first.interactionId) : setTimeout(look, 20)));
      look();
    });
    await gate.interlock.respond(question, 'yes');
    expect(await waiting).toMatchObject({
      status: 'decided',
      decisions: [{ status: 'approved', decidedBy: 'person' }],
    });

    const controller = new AbortController();
    const abandoned = gate.decide(
      [{ toolCallId: 'c2', toolName: 'write_file', arguments: { path: 'x', content: 'z' } }],
      { signal: controller.signal },
    );
    await new Promise<void>((resolve) => {
      const look = () =>
        void gate.interlock.pending().then((list) => (list.length > 0 ? resolve() : setTimeout(look, 20)));
      look();
    });
    controller.abort();
    const given = await abandoned;
    expect(given).toMatchObject({
      status: 'decided',
      decisions: [{ status: 'rejected', decidedBy: 'cancelled', reason: expect.stringContaining('stopped waiting') }],
    });
    expect(await gate.interlock.pending()).toEqual([]);
    expect(
      (await gate.interlock.audit({ threadId: given.decisions[0]!.threadId })).map((entry) => [
        entry.toolName,
        entry.outcome,
        entry.decidedBy,
      ]),
    ).toEqual([['write_file', 'deny', 'interaction:cancelled']]);
  });
});

describe('approval gate deadlines (F56, F17)', () => {
  it('applies an answer given hours after the question: by default a question waits until answered', async () => {
    const { clock, advance } = movableClock();
    const { gate, continuation } = await timedGate({ clock });
    const outcome = await gate.decide(WRITE, { state: () => 'saved' });
    expect(outcome.status).toBe('paused');
    const [question] = await gate.interlock.pending();
    expect(question?.timeout ?? 0).toBe(0);
    advance(3 * 60 * 60 * 1_000);
    expect(await gate.interlock.respond(question!.interactionId, 'yes', { responder: 'ada' })).toMatchObject({
      status: 'accepted',
    });
    expect(await continuation).toMatchObject({
      decisions: [{ status: 'approved', decidedBy: 'person', responder: 'ada', arguments: { content: 'draft' } }],
    });
  });

  it('refuses an answer given after a configured deadline and rejects the call as timed out', async () => {
    const { clock, advance } = movableClock();
    const { gate, continuation } = await timedGate({ clock, approvalTimeoutMs: 60_000 });
    await gate.decide(WRITE, { state: () => 'saved' });
    const [question] = await gate.interlock.pending();
    expect(question?.timeout).toBe(60_000);
    advance(61_000);
    expect(await gate.interlock.respond(question!.interactionId, 'yes')).toMatchObject({ status: 'expired' });
    expect(await continuation).toMatchObject({
      decisions: [
        { status: 'rejected', decidedBy: 'timeout', reason: expect.stringMatching(/^nobody answered in time/) },
      ],
    });
    expect(await gate.interlock.pending()).toEqual([]);
    expect(
      (await gate.interlock.audit()).map((entry) => [entry.toolName, entry.outcome, entry.decidedBy]),
    ).toContainEqual(['write_file', 'deny', 'interaction:timeout']);
  });

  it('times a question out at a configured deadline nobody answered before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const { gate, continuation } = await timedGate({ clock: { now: () => Date.now() }, approvalTimeoutMs: 60_000 });
    await gate.decide(WRITE, { state: () => 'saved' });
    expect(await gate.interlock.pending()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(await gate.interlock.pending()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await continuation).toMatchObject({ decisions: [{ status: 'rejected', decidedBy: 'timeout' }] });
    expect(await gate.interlock.pending()).toEqual([]);
  });

  it('refuses a deadline that is not a whole number of milliseconds', async () => {
    await expect(createApprovalGate({ name: 'bad', approvalTimeoutMs: -1 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });
});

describe('approval gate on SQLite (F56)', () => {
  it('continues a pause whose decision an Interlock with no gate took to its end, as `interlock respond` does (F56, F21)', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-gate-'));
    const store = { type: 'sqlite' as const, path: join(directory, 'interlock.db') };
    let continued: (pause: GatePause) => void = () => undefined;
    const continuation = new Promise<GatePause>((resolve) => (continued = resolve));
    gate = await createApprovalGate({
      name: 'watched',
      store,
      tools,
      watchMs: 50,
      continuation: async (pause) => continued(pause),
    });
    const outcome = await gate.decide(
      [{ toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'a.md', content: 'b' } }],
      { state: () => 'saved' },
    );
    expect(outcome.status).toBe('paused');
    // Another process with no gate in it answers and runs the decision thread itself.
    const elsewhere = await createInterlock({ store });
    try {
      const [question] = await elsewhere.pending();
      const answer = await elsewhere.respond(question!.interactionId, 'yes', { responder: 'ada' });
      if (answer.status === 'accepted' && answer.thread) await answer.thread.done();
      expect((await elsewhere.thread(outcome.status === 'paused' ? outcome.decisions[0]!.threadId : ''))?.status).toBe(
        'completed',
      );
    } finally {
      await elsewhere.close();
    }
    expect(await continuation).toMatchObject({
      state: 'saved',
      decisions: [{ status: 'approved', decidedBy: 'person', responder: 'ada' }],
    });
  });
});
