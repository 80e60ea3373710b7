import { describe, expect, it } from 'vitest';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import type { ApprovalOptions } from '../policy/approval-options.js';
import { interactionRecord } from '../testing/conformance/store-records.js';
import { AnswerApplier } from './answer-applier.js';
import { awaitAnswer, newTurnCall } from './turn-state.js';
import { turnParts } from './__fixtures__/turn-parts.js';

/** An AnswerApplier over hand-built parts, and what it recorded. */
async function applier(approval: ApprovalOptions = {}) {
  const parts = await turnParts(approval);
  const applier = new AnswerApplier(parts.tools, parts.policy, parts.gateway, parts.execution, parts.recorder);
  const audit = async () =>
    (await parts.store.listAuditEntries()).map(({ decidedBy, outcome, rule }) => ({ decidedBy, outcome, rule }));
  return { ...parts, applier, audit };
}

/** `note` with `text`, asked about and waiting on interaction-1. */
const waiting = (text = 'x') =>
  awaitAnswer(
    { ...newTurnCall({ id: 'c1', name: 'note', arguments: { text } }), rule: 'ask:risk:MEDIUM', rememberable: true },
    'execution',
    'interaction-1',
  );

const answered = (input: unknown): InteractionRecord =>
  interactionRecord({
    status: 'responded',
    response: { input, responder: 'ada', respondedAt: '2026-01-02T03:04:30.000Z' },
  });

describe('AnswerApplier (a settled wait moves its call)', () => {
  it('readies an approved call, audits the person, and marks the answer applied (F17, F33)', async () => {
    const { applier: a, context, audit, applied, released, eventTypes } = await applier();
    const call = await a.apply(waiting(), answered({ approved: true }), context, 'agent');
    expect(call).toMatchObject({ phase: 'ready', approvedBy: 'person:ada', responder: 'ada' });
    expect(await audit()).toEqual([{ decidedBy: 'person', outcome: 'allow', rule: 'ask:risk:MEDIUM' }]);
    expect(applied).toEqual(['interaction-1']);
    expect(released).toEqual(['interaction-1']);
    expect(eventTypes()).toEqual(['USER_INTERACTION_RESPONDED', 'TOOL_CALL_DECIDED', 'USER_INTERACTION_PROCESSED']);
  });

  it('ends a rejected call with the reason the model will read, and runs nothing (F17)', async () => {
    const { applier: a, context, runs, applied } = await applier();
    const call = await a.apply(waiting(), answered({ approved: false, denyReason: 'not now' }), context, 'agent');
    expect(call).toMatchObject({
      phase: 'done',
      status: 'EXECUTION_REJECTED',
      content: expect.stringContaining('not now'),
    });
    expect(runs).toEqual([]);
    expect(applied).toEqual(['interaction-1']);
  });

  it('runs an approved edit in place of the proposed arguments (F18)', async () => {
    const { applier: a, context } = await applier();
    const call = await a.apply(
      waiting(),
      answered({ approved: true, editedParameters: { text: 'edited' } }),
      context,
      'agent',
    );
    expect(call).toMatchObject({ phase: 'ready', finalArguments: { text: 'edited' }, arguments: { text: 'x' } });
  });

  it('refuses an approved edit a deny rule blocks: the call ends rejected and the answer is consumed (F18, F23)', async () => {
    const {
      applier: a,
      context,
      audit,
      applied,
      eventTypes,
    } = await applier({
      denyRules: ['tool == "note" && args.text == "forbidden"'],
    });
    const call = await a.apply(
      waiting(),
      answered({ approved: true, editedParameters: { text: 'forbidden' } }),
      context,
      'agent',
    );
    expect(call).toMatchObject({ phase: 'done', status: 'EXECUTION_REJECTED' });
    expect((await audit()).map((entry) => entry.rule)).toEqual(['edit:refused']);
    expect(applied).toEqual(['interaction-1']);
    expect(eventTypes()).toContain('USER_INTERACTION_PROCESSED');
  });

  it('remembers an approval for the session when automatic memory is on, so the same call runs without asking (F30)', async () => {
    const { applier: a, context, policy } = await applier();
    await a.apply(waiting('same'), answered({ approved: true }), context, 'agent');
    expect(
      await policy.isRemembered(
        { toolName: 'note', arguments: { text: 'same' } },
        { channel: 'cli', chatId: 'session-1' },
      ),
    ).toBe(true);
    expect(
      await policy.isRemembered(
        { toolName: 'note', arguments: { text: 'other' } },
        { channel: 'cli', chatId: 'session-1' },
      ),
    ).toBe(false);
  });

  it('audits an answer applied a second time (after a crash before its checkpoint) once (F33)', async () => {
    const { applier: a, context, store } = await applier();
    await a.apply(waiting(), answered({ approved: true }), context, 'agent');
    const again = await a.apply(waiting(), answered({ approved: true }), context, 'agent');
    expect(again).toMatchObject({ phase: 'ready' });
    expect(await store.listAuditEntries()).toEqual([
      expect.objectContaining({ decidedBy: 'person', interactionId: 'interaction-1', toolCallId: 'c1' }),
    ]);
  });

  it('ends the call TIMEOUT when nobody answered in time, and leaves the failed wait as it is (F14, F28)', async () => {
    const { applier: a, context, applied, eventTypes, audit } = await applier();
    const timedOut = interactionRecord({
      status: 'failed',
      failureReason: 'timeout',
      failureMessage: 'nobody answered',
    });
    const call = await a.apply(waiting(), timedOut, context, 'agent');
    expect(call).toMatchObject({ phase: 'done', status: 'TIMEOUT' });
    expect(applied).toEqual([]);
    expect(eventTypes()).toEqual(['USER_INTERACTION_FAILED', 'TOOL_CALL_FAILED']);
    expect(await audit()).toEqual([{ decidedBy: 'interaction:timeout', outcome: 'deny', rule: 'ask:risk:MEDIUM' }]);
  });
});
