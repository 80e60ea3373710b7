import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
  await gate?.close();
  gate = undefined;
});

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
    expect(await abandoned).toMatchObject({
      status: 'decided',
      decisions: [{ status: 'rejected', decidedBy: 'cancelled' }],
    });
    expect(await gate.interlock.pending()).toEqual([]);
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
