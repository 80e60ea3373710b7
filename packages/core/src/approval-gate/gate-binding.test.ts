import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInterlock } from '../interlock.js';
import { until } from '../testing/until.js';
import type { ApprovalGate } from './approval-gate.js';
import { createApprovalGate } from './create-approval-gate.js';
import { mismatchOf } from './gate-decisions.js';

const tools = {
  read_file: { category: 'read' as const, riskLevel: 'LOW' as const },
  write_file: { category: 'write' as const, riskLevel: 'MEDIUM' as const, pathArgument: 'path' },
  bash: { category: 'command' as const, riskLevel: 'HIGH' as const, commandArgument: 'command' },
};

const gates: ApprovalGate[] = [];
afterEach(async () => {
  for (const gate of gates.splice(0)) await gate.close();
});

async function open(options: Partial<Parameters<typeof createApprovalGate>[0]> = {}): Promise<ApprovalGate> {
  const gate = await createApprovalGate({ name: 'bound', tools, ...options });
  gates.push(gate);
  return gate;
}

/** A clock the test moves: the gate's deadlines and the answers' times are read from it. */
function movableClock(start = Date.parse('2026-11-26T09:00:00Z')) {
  let now = start;
  return { clock: { now: () => now }, advance: (ms: number) => (now += ms) };
}

describe('a decision is bound to exactly the call it decided (F56, F62)', () => {
  it('decides two calls of one turn under one id as two calls, each in its place, both audited', async () => {
    const gate = await open();
    const read = { toolCallId: 'call_1', toolName: 'read_file', arguments: { path: 'README.md' } };
    const rm = { toolCallId: 'call_1', toolName: 'bash', arguments: { command: 'rm -rf /' } };
    const outcome = await gate.decide([read, rm]);
    expect(outcome.decisions).toMatchObject([
      { toolCallId: 'call_1', toolName: 'read_file', status: 'approved', decidedBy: 'category:read' },
      { toolCallId: 'call_1', toolName: 'bash', status: 'rejected', decidedBy: expect.stringMatching(/^shell:banned/) },
    ]);
    const [readDecision, rmDecision] = outcome.decisions;
    expect(gate.decidedExactly(readDecision!, read)).toBe(true);
    expect(gate.decidedExactly(readDecision!, rm)).toBe(false);
    // The read's approval lets the read run, never another call under its id.
    expect(gate.letsRun(readDecision!, read)).toBe(true);
    expect(gate.letsRun(readDecision!, rm)).toBe(false);
    expect(gate.letsRun(readDecision!, { toolName: 'read_file', arguments: { path: '/etc/shadow' } })).toBe(false);
    expect(gate.letsRun(rmDecision!, rm)).toBe(false);
    // Each call's decision is audited in its own thread, with the arguments it was decided on.
    const audit = await gate.interlock.audit();
    expect(
      audit.map((entry) => [entry.threadId, entry.toolName, entry.outcome, entry.originalArguments]).sort(),
    ).toEqual(
      [
        [rmDecision!.threadId, 'bash', 'deny', rm.arguments],
        [readDecision!.threadId, 'read_file', 'allow', read.arguments],
      ].sort(),
    );
  });

  it('lets an edited approval run only with the edited arguments (F19, F62)', async () => {
    const gate = await open();
    const write = { toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'notes.md', content: 'draft' } };
    const waiting = gate.decide([write]);
    const [question] = await untilPending(gate);
    await gate.interlock.respond(question!.interactionId, {
      approved: true,
      editedParameters: { path: 'notes.md', content: 'final' },
    });
    const [decision] = (await waiting).decisions;
    expect(decision).toMatchObject({ status: 'approved', edited: true, proposed: { content: 'draft' } });
    expect(gate.decidedExactly(decision!, write)).toBe(true);
    expect(gate.letsRun(decision!, write)).toBe(false);
    expect(gate.letsRun(decision!, { toolName: 'write_file', arguments: { content: 'final', path: 'notes.md' } })).toBe(
      true,
    );
  });

  it('binds a decision to the tool’s definition: a gate that sees the tool defined otherwise does not take it', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-binding-'));
    const store = { type: 'sqlite' as const, path: join(directory, 'interlock.db') };
    const first = await open({ store });
    const read = { toolCallId: 'c1', toolName: 'read_file', arguments: { path: 'a' } };
    const [decision] = (await first.decide([read])).decisions;
    expect(first.letsRun(decision!, read)).toBe(true);
    await first.close();
    gates.splice(0);
    const redefined = await open({
      store,
      tools: { ...tools, read_file: { category: 'read', riskLevel: 'LOW', description: 'Reads any file, anywhere' } },
    });
    const [again] = await redefined.decisions([decision!.threadId]);
    expect(again).toMatchObject({ status: 'approved', toolName: 'read_file' });
    expect(redefined.decidedExactly(again!, read)).toBe(false);
    expect(redefined.letsRun(again!, read)).toBe(false);
  });

  it('checks an edit against a schema the framework gave late, in another process too (F19, F56)', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'interlock-binding-'));
    const store = { type: 'sqlite' as const, path: join(directory, 'interlock.db') };
    const gate = await open({ store });
    gate.describeTools({
      write_file: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
    });
    const outcome = await gate.decide(
      [{ toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }],
      { detach: true },
    );
    expect(outcome.status).toBe('pending');
    const inbox = await createInterlock({ store, continueIn: 'workers-only' });
    try {
      const [question] = await inbox.pending();
      const refused = await inbox.checkResponse(question!.interactionId, {
        approved: true,
        editedParameters: { path: 'notes.md', content: 42 },
      });
      expect(refused).toMatchObject({ ok: false, message: expect.stringContaining('content') });
      expect(await inbox.pending()).toHaveLength(1);
    } finally {
      await inbox.close();
    }
  });

  it('the rejection of a call that is not the one decided names nothing of the other call', () => {
    const rejection = mismatchOf({ toolCallId: 'call_1', toolName: 'bash', arguments: { command: 'rm -rf /' } });
    expect(rejection).toMatchObject({ status: 'rejected', decidedBy: 'mismatch', toolName: 'bash' });
    expect(rejection.status === 'rejected' && rejection.reason).not.toContain('rm -rf');
  });
});

describe('the decision that stands, not the last attempt (F56, F62)', () => {
  it('a second approver after a rejection leaves the first reason', async () => {
    const gate = await open();
    const outcome = await gate.decide(
      [{ toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }],
      { detach: true },
    );
    const [question] = await gate.interlock.pending();
    await gate.interlock.respond(
      question!.interactionId,
      { approved: false, denyReason: 'not before the review' },
      { responder: 'ada' },
    );
    const [threadId] = outcome.decisions.map((decision) => decision.threadId);
    await gate.decisions([threadId!], { wait: true });
    // The second approver is refused, as `interlock respond` and the inbox record it.
    expect(
      await gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'bob' }),
    ).toMatchObject({ status: 'already_answered' });
    await gate.interlock.recordAttempt({
      interactionId: question!.interactionId,
      responder: 'bob',
      result: 'lost',
      reason: 'approve: already_answered',
    });
    expect((await gate.interlock.audit({ threadId: threadId! })).at(-1)).toMatchObject({ decidedBy: 'attempt' });
    expect(await gate.decisions([threadId!])).toMatchObject([
      {
        status: 'rejected',
        decidedBy: 'person',
        responder: 'ada',
        reason: 'ada rejected it: not before the review',
      },
    ]);
  });

  it('a late answer after the deadline leaves "nobody answered in time"', async () => {
    const { clock, advance } = movableClock();
    const gate = await open({ clock, approvalTimeoutMs: 60_000 });
    const outcome = await gate.decide(
      [{ toolCallId: 'c1', toolName: 'write_file', arguments: { path: 'notes.md', content: 'draft' } }],
      { detach: true },
    );
    const [question] = await gate.interlock.pending();
    advance(61_000);
    expect(
      await gate.interlock.respond(question!.interactionId, { approved: true }, { responder: 'ada' }),
    ).toMatchObject({ status: 'expired' });
    const [threadId] = outcome.decisions.map((decision) => decision.threadId);
    await gate.decisions([threadId!], { wait: true });
    await gate.interlock.recordAttempt({
      interactionId: question!.interactionId,
      responder: 'ada',
      result: 'lost',
      reason: 'approve: expired',
    });
    expect((await gate.interlock.audit({ threadId: threadId! })).at(-1)).toMatchObject({ decidedBy: 'attempt' });
    expect(await gate.decisions([threadId!])).toMatchObject([
      { status: 'rejected', decidedBy: 'timeout', reason: expect.stringMatching(/^nobody answered in time/) },
    ]);
  });
});

function untilPending(gate: ApprovalGate) {
  return until(
    'the question to be asked',
    () => gate.interlock.pending(),
    (list) => list.length > 0,
  );
}
