import { join } from 'node:path';
import { createApprovalGate, createInterlock } from '@interlock/core';
import { until } from '@interlock/core/testing';
import { expect, it } from 'vitest';
import { projectRules, type AgentHarness } from './agent-harness.js';
import { interlockCli } from './interlock-cli.js';
import { unaudited } from './ledger.js';

/*
 * The cases an agent framework's adapter holds whatever the framework (F56, F62, F17, F19):
 * each registers one test, under the same name for every adapter, and drives the tests'
 * agent through the harness. An adapter's cases file calls them inside its own describes.
 */

const WRITE_NOTES = { id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'draft' } };

export function refusesBannedAndToldReason(h: AgentHarness): void {
  it('refuses a banned command at once and tells the model a person’s reason for a rejection (F56, F14, F25, F45)', async () => {
    h.server.enqueue(
      { toolCalls: [{ id: 'call_rm', name: 'bash', arguments: { command: 'rm -rf /' } }] },
      { toolCalls: [{ id: 'call_write', name: 'write_file', arguments: { path: 'notes.md', content: 'x' } }] },
      { text: 'Understood.' },
    );
    const { guarded, finished } = await h.guard();
    const output = finished();
    expect(await h.start(guarded, 'Clean up', 'cleanup')).toMatchObject({ status: 'paused' });
    const [question] = await guarded.gate.interlock.pending();
    await guarded.gate.interlock.respond(question!.interactionId, { approved: false, denyReason: 'not today' });
    expect(await output).toBe('Understood.');
    expect(await h.ledger.lines()).toEqual([]);
    expect(h.told(1)).toContain('shell:banned');
    expect(h.told(2)).toContain('not today');
    expect(await guarded.gate.interlock.verifyAudit()).toMatchObject({ valid: true });
  });
}

/**
 * `oneCallPerTurn`: the model makes the two writes in two turns, for a framework that runs
 * none of a turn's calls when one of them is rejected (LangChain's middleware).
 */
export function decidesByTheProjectRules(h: AgentHarness, { oneCallPerTurn }: { oneCallPerTurn: boolean }): void {
  it('decides by the rules of the project file: its allow rule runs a write at once, its deny rule refuses one (F56, F23)', async () => {
    const calls = [
      { id: 'call_log', name: 'write_file', arguments: { path: 'CHANGELOG.md', content: 'entry' } },
      { id: 'call_secret', name: 'write_file', arguments: { path: 'secrets.env', content: 'KEY=1' } },
    ];
    const turns = oneCallPerTurn ? calls.map((call) => ({ toolCalls: [call] })) : [{ toolCalls: calls }];
    h.server.enqueue(...turns, { text: 'The changelog is written.' });
    const { guarded } = await h.guard({ config: await projectRules(h.dir) });
    expect(await h.start(guarded, 'Write the changelog and the secrets', 'config')).toMatchObject({
      status: 'completed',
      output: 'The changelog is written.',
    });
    expect(await h.ledger.lines()).toEqual([{ tool: 'write_file', args: { path: 'CHANGELOG.md', content: 'entry' } }]);
    // The model is told of the refusal in the request after the turn that made the call.
    expect(h.told(turns.length)).toContain('deny-rule:0');
    expect((await guarded.gate.interlock.audit()).map((entry) => [entry.outcome, entry.rule]).sort()).toEqual([
      ['allow', 'allow-rule:0'],
      ['deny', 'deny-rule:0'],
    ]);
  });
}

export function appliesLateApprovalAndTimesOut(h: AgentHarness): void {
  it('applies an approval given hours after the question, and with approvalTimeoutMs rejects a late one as timed out (F56, F17)', async () => {
    let now = Date.parse('2026-11-26T09:00:00Z');
    const clock = { now: () => now };
    h.server.enqueue({ toolCalls: [WRITE_NOTES] }, { text: 'Done, at last.' });
    const patient = await h.guard({ name: 'patient', clock });
    let output = patient.finished();
    expect(await h.start(patient.guarded, 'Write the notes', 'patient')).toMatchObject({ status: 'paused' });
    const [question] = await patient.guarded.gate.interlock.pending();
    now += 3 * 60 * 60 * 1_000;
    expect(await patient.guarded.gate.interlock.respond(question!.interactionId, { approved: true })).toMatchObject({
      status: 'accepted',
    });
    expect(await output).toBe('Done, at last.');
    expect((await h.ledger.lines()).map(({ tool }) => tool)).toEqual(['write_file']);

    h.server.enqueue({ toolCalls: [{ ...WRITE_NOTES, id: 'call_write_2' }] }, { text: 'Nobody approved it.' });
    const hurried = await h.guard({ name: 'hurried', clock, approvalTimeoutMs: 60_000 });
    output = hurried.finished();
    expect(await h.start(hurried.guarded, 'Write the notes again', 'hurried')).toMatchObject({ status: 'paused' });
    const [late] = await hurried.guarded.gate.interlock.pending();
    expect(late?.timeout).toBe(60_000);
    now += 61_000;
    expect(await hurried.guarded.gate.interlock.respond(late!.interactionId, { approved: true })).toMatchObject({
      status: 'expired',
    });
    expect(await output).toBe('Nobody approved it.');
    expect((await h.ledger.lines()).map(({ tool }) => tool)).toEqual(['write_file']);
    expect(h.told(-1)).toContain('nobody answered in time');
  });
}

export function decidesReusedIdOnItsOwn(h: AgentHarness): void {
  it('a call id reused in a later turn is decided on its own: the banned command under it never runs', async () => {
    h.server.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }] },
      { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } }] },
      { text: 'I will not do that.' },
    );
    const { guarded } = await h.guard();
    // A run that throws is an outcome too: what ran and what the audit says are checked first.
    const outcome = await h.start(guarded, 'Read, then clean up', 'reused').catch((error: unknown) => ({ error }));
    expect(await h.ledger.lines()).toEqual([{ tool: 'read_file', args: { path: 'README.md' } }]);
    const audit = await guarded.gate.interlock.audit();
    expect(audit.map((entry) => [entry.toolName, entry.outcome])).toEqual([
      ['read_file', 'allow'],
      ['bash', 'deny'],
    ]);
    expect(unaudited(await h.ledger.lines(), audit)).toEqual([]);
    expect(outcome).toMatchObject({ status: 'completed', output: 'I will not do that.' });
    expect(h.prompts()).toContain('shell:banned');
  });
}

export function decidesTwoCallsUnderOneId(h: AgentHarness): void {
  it('two calls of one turn under one id are two calls: each decided as itself, the banned one never runs', async () => {
    h.server.enqueue(
      {
        toolCalls: [
          { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } },
          { id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } },
        ],
      },
      { text: 'Read it; the rest was refused.' },
    );
    const { guarded } = await h.guard();
    expect(await h.start(guarded, 'Read, then clean up', 'duplicate')).toMatchObject({ status: 'completed' });
    expect((await h.ledger.lines()).filter((line) => line.tool === 'bash')).toEqual([]);
    const audit = await guarded.gate.interlock.audit();
    expect(audit.map((entry) => [entry.toolName, entry.outcome, entry.originalArguments]).sort()).toEqual([
      ['bash', 'deny', { command: 'rm -rf /' }],
      ['read_file', 'allow', { path: 'README.md' }],
    ]);
    // The audit says the bash call was denied by the shell rules, and the model is told so.
    expect(audit.find((entry) => entry.toolName === 'bash')?.rule).toMatch(/^shell:banned/);
    expect(unaudited(await h.ledger.lines(), audit)).toEqual([]);
    expect(h.prompts()).toContain('shell:banned');
  });
}

/**
 * The model's turns and the person's answers of the edited-id case: a deploy approved with an
 * edit, the edited command again under the same id (asked about again, rejected), then a
 * banned command under it; the model ends with "Deployed to staging once.".
 */
export function editedIdScript() {
  return {
    turns: [
      { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'make deploy' } }] },
      { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'make deploy-staging' } }] },
      { toolCalls: [{ id: 'call_1', name: 'bash', arguments: { command: 'rm -rf /' } }] },
      { text: 'Deployed to staging once.' },
    ],
    answers: [
      { approved: true, editedParameters: { command: 'make deploy-staging' } },
      { approved: false, denyReason: 'once is enough' },
    ],
  };
}

export function asksAgainForAnEditedId(h: AgentHarness): void {
  it('an id reused with the edited arguments is asked about again, and a banned command under it never runs', async () => {
    const { turns, answers } = editedIdScript();
    h.server.enqueue(...turns);
    const asked: unknown[] = [];
    const { guarded, finished } = await h.guard();
    const subscription = guarded.gate.interlock.events$.subscribe((event) => {
      if (event.type !== 'USER_INTERACTION_REQUESTED') return;
      asked.push(event.request.toolApproval?.toolParameters);
      void guarded.gate.interlock.respond(event.request.interactionId, answers.shift(), { responder: 'ada' });
    });
    try {
      const output = finished();
      // Answered as soon as asked: the run may finish within it, or in the gate's continuation.
      const outcome = await h.start(guarded, 'Deploy', 'edited');
      expect(outcome.status === 'completed' ? outcome.output : await output).toBe('Deployed to staging once.');
    } finally {
      subscription.unsubscribe();
    }
    expect(asked).toEqual([{ command: 'make deploy' }, { command: 'make deploy-staging' }]);
    expect(await h.ledger.lines()).toEqual([{ tool: 'bash', args: { command: 'make deploy-staging' } }]);
    expect(unaudited(await h.ledger.lines(), await guarded.gate.interlock.audit())).toEqual([]);
    expect(h.prompts()).toContain('once is enough');
    expect(h.prompts()).toContain('shell:banned');
  });
}

export function keepsTheFirstReasonFromTheCli(h: AgentHarness): void {
  it('a second approver after a rejection leaves the model reading the first reason (F56)', async () => {
    const store = join(h.dir, 'interlock.db');
    h.server.enqueue({ toolCalls: [WRITE_NOTES] }, { text: 'Waiting for the review.' });
    const asker = await h.guard({ store: { type: 'sqlite', path: store } });
    expect(await h.start(asker.guarded, 'Write the notes', 'second')).toMatchObject({ status: 'paused' });
    const [question] = await asker.guarded.gate.interlock.pending();
    await asker.guarded.close();
    // No gate runs: `interlock respond` takes the decision to its end itself; a second approver is refused.
    const id = question!.interactionId;
    expect((await interlockCli(store, ['respond', id, 'reject', '--reason', 'not before the review'])).code).toBe(0);
    expect((await interlockCli(store, ['respond', id, 'approve'])).code).toBe(4);
    // The next process of the agent continues the run from what Interlock stored.
    const continuer = await h.guard({ store: { type: 'sqlite', path: store } });
    expect(await continuer.finished()).toBe('Waiting for the review.');
    expect(await h.ledger.lines()).toEqual([]);
    expect(h.prompts()).toContain('not before the review');
    expect(h.prompts()).not.toContain('attempt');
  });
}

export function tellsOfALateAnswerFromTheCli(h: AgentHarness): void {
  it('a late answer after the deadline leaves the model reading that nobody answered in time (F56, F17)', async () => {
    const store = join(h.dir, 'interlock.db');
    let now = Date.parse('2026-11-26T09:00:00Z');
    const clock = { now: () => now };
    h.server.enqueue({ toolCalls: [WRITE_NOTES] }, { text: 'Nobody approved it.' });
    const options = { store: { type: 'sqlite' as const, path: store }, clock, approvalTimeoutMs: 60_000 };
    const asker = await h.guard(options);
    expect(await h.start(asker.guarded, 'Write the notes', 'late')).toMatchObject({ status: 'paused' });
    const [question] = await asker.guarded.gate.interlock.pending();
    await asker.guarded.close();
    now += 61_000;
    await answerTooLate(store, clock, question!, { name: h.driver.gateName, approvalTimeoutMs: 60_000 });
    const continuer = await h.guard(options);
    expect(await continuer.finished()).toBe('Nobody approved it.');
    expect(await h.ledger.lines()).toEqual([]);
    expect(h.prompts()).toContain('nobody answered in time');
    expect(h.prompts()).not.toContain('attempt');
  });
}

/**
 * A late answer, after the decision timed out in a process of the gate that did not continue
 * it: answered as `interlock respond` answers (refused as expired, the attempt audited after
 * the decision), so the next process of the agent reads the decision with the attempt after it.
 */
async function answerTooLate(
  store: string,
  clock: { now(): number },
  { interactionId, threadId }: { interactionId: string; threadId: string },
  gate: { name: string; approvalTimeoutMs: number },
): Promise<void> {
  const bystander = await createApprovalGate({ ...gate, store: { type: 'sqlite', path: store }, clock });
  try {
    await until(
      'the decision to time out',
      () => bystander.interlock.thread(threadId),
      (thread) => thread?.status === 'completed' || thread?.status === 'failed',
    );
  } finally {
    await bystander.close();
  }
  const elsewhere = await createInterlock({ store: { type: 'sqlite', path: store }, clock, recoverOnStart: false });
  try {
    const result = await elsewhere.respond(interactionId, { approved: true }, { responder: 'cli:ada' });
    expect(result.status).toBe('expired');
    await elsewhere.recordAttempt({ interactionId, responder: 'cli:ada', result: 'lost', reason: 'approve: expired' });
    expect((await elsewhere.audit({ threadId })).map((entry) => entry.decidedBy)).toEqual([
      'interaction:timeout',
      'attempt',
    ]);
  } finally {
    await elsewhere.close();
  }
}
