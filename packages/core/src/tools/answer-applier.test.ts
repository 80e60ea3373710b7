import { describe, expect, it } from 'vitest';
import type { UnitOfWork } from '../persistence/checkpoint-store.js';
import type { ApprovalOptions } from '../policy/approval-options.js';
import { committed, interactionRecord, present } from '../testing/conformance/store-records.js';
import { awaitAnswer, newTurnCall } from './turn-state.js';
import { answeredInteraction, threadWithTurn, turnOf, turnParts } from './__fixtures__/turn-parts.js';

/** `note` with `text`, asked about and waiting on interaction-1. */
const waiting = (text = 'x') =>
  awaitAnswer(
    { ...newTurnCall({ id: 'c1', name: 'note', arguments: { text } }), rule: 'ask:risk:MEDIUM', rememberable: true },
    'execution',
    'interaction-1',
  );

/** The question about `note`, as the thread asked it. */
const question = () => interactionRecord({ interactionId: 'interaction-1', nodeId: 'agent' });

/**
 * A thread waiting on interaction-1 about `waiting(text)`, whose answer (`input`, by ada)
 * another process stored; an AnswerApplier over parts built by hand, and a run of the thread.
 */
async function applier(input: unknown, options: { approval?: ApprovalOptions; text?: string } = {}) {
  return turnParts({
    ...(options.approval ? { approval: options.approval } : {}),
    thread: threadWithTurn([waiting(options.text)], { status: 'waiting', pendingInteractionIds: ['interaction-1'] }),
    seed: (store) => answeredInteraction(store, question(), input),
    claimed: false,
  });
}

/** Applies the settled interaction-1 to the call the way the pipeline does (the thread stops waiting on it), and commits. */
async function applyAnswer(parts: Awaited<ReturnType<typeof applier>>, text?: string) {
  const record = present(parts.run.interaction('interaction-1'));
  const decided = await parts.applier.apply(waiting(text), record, parts.context, 'agent');
  await parts.settle(decided, 'interaction-1');
  await parts.run.commit();
  return decided;
}

/** The committed unit that consumed interaction-1's answer. */
function consumingUnit(units: UnitOfWork[]): UnitOfWork {
  const consuming = units.filter((unit) =>
    unit.interactions?.some((change) => change.kind === 'consume' && change.interactionId === 'interaction-1'),
  );
  expect(consuming).toHaveLength(1);
  return present(consuming[0]);
}

describe('AnswerApplier (a settled wait moves its call)', () => {
  it('readies an approved call, audits the person, and consumes the answer in the commit that readies it (F17, F33)', async () => {
    const parts = await applier({ approved: true });
    const { call } = await applyAnswer(parts);
    expect(call).toMatchObject({ phase: 'ready', approvedBy: 'person:ada', responder: 'ada' });
    expect(await parts.audit()).toEqual([{ decidedBy: 'person', outcome: 'allow', rule: 'ask:risk:MEDIUM' }]);
    expect((await parts.store.getInteraction('interaction-1'))?.status).toBe('processed');
    // The answer is consumed in the same unit as the call's next phase and its audit entry.
    const unit = consumingUnit(parts.store.committedUnits());
    const saved = unit.thread?.kind === 'save' ? unit.thread.thread : undefined;
    expect(turnOf(present(saved)).calls).toEqual([expect.objectContaining({ id: 'c1', phase: 'ready' })]);
    expect(unit.audit).toEqual([
      expect.objectContaining({
        entry: expect.objectContaining({ interactionId: 'interaction-1', decidedBy: 'person' }),
      }),
    ]);
    expect(parts.eventTypes()).toEqual([
      'USER_INTERACTION_RESPONDED',
      'TOOL_CALL_DECIDED',
      'USER_INTERACTION_PROCESSED',
    ]);
  });

  it('ends a rejected call with the reason the model will read, runs nothing, and consumes the answer (F17)', async () => {
    const parts = await applier({ approved: false, denyReason: 'not now' });
    const { call } = await applyAnswer(parts);
    expect(call).toMatchObject({
      phase: 'done',
      status: 'EXECUTION_REJECTED',
      content: expect.stringContaining('not now'),
    });
    expect(parts.runs).toEqual([]);
    const unit = consumingUnit(parts.store.committedUnits());
    const saved = unit.thread?.kind === 'save' ? unit.thread.thread : undefined;
    expect(turnOf(present(saved)).calls).toEqual([expect.objectContaining({ id: 'c1', phase: 'done' })]);
    expect((await parts.store.getInteraction('interaction-1'))?.status).toBe('processed');
  });

  it('runs an approved edit in place of the proposed arguments (F18)', async () => {
    const parts = await applier({ approved: true, editedParameters: { text: 'edited' } });
    const { call } = await applyAnswer(parts);
    expect(call).toMatchObject({ phase: 'ready', finalArguments: { text: 'edited' }, arguments: { text: 'x' } });
  });

  it('refuses an approved edit a deny rule blocks: the call ends rejected and the answer is consumed (F18, F23)', async () => {
    const parts = await applier(
      { approved: true, editedParameters: { text: 'forbidden' } },
      { approval: { denyRules: ['tool == "note" && args.text == "forbidden"'] } },
    );
    const { call } = await applyAnswer(parts);
    expect(call).toMatchObject({ phase: 'done', status: 'EXECUTION_REJECTED' });
    expect((await parts.audit()).map((entry) => entry.rule)).toEqual(['edit:refused']);
    const unit = consumingUnit(parts.store.committedUnits());
    const saved = unit.thread?.kind === 'save' ? unit.thread.thread : undefined;
    expect(turnOf(present(saved)).calls).toEqual([
      expect.objectContaining({ id: 'c1', phase: 'done', status: 'EXECUTION_REJECTED' }),
    ]);
    expect((await parts.store.getInteraction('interaction-1'))?.status).toBe('processed');
    expect(parts.eventTypes()).toContain('USER_INTERACTION_PROCESSED');
  });

  it('remembers an approval for the session when automatic memory is on, so the same call runs without asking (F30)', async () => {
    const parts = await applier({ approved: true }, { text: 'same' });
    await applyAnswer(parts, 'same');
    const scope = { channel: 'cli', chatId: 'session-1' };
    expect(await parts.policy.isRemembered({ toolName: 'note', arguments: { text: 'same' } }, scope)).toBe(true);
    expect(await parts.policy.isRemembered({ toolName: 'note', arguments: { text: 'other' } }, scope)).toBe(false);
    // Remembered in the unit that consumed the answer.
    expect(consumingUnit(parts.store.committedUnits()).remember).toHaveLength(1);
  });

  it('audits an answer applied a second time (after a crash before its commit) once (F33)', async () => {
    const parts = await applier({ approved: true });
    // A run applies the answer and its process dies before the commit: nothing of it is stored.
    const dying = await parts.openRun({ dying: true });
    await dying.settle(
      await parts.applier.apply(waiting(), present(dying.run.interaction('interaction-1')), dying.context, 'agent'),
      'interaction-1',
    );
    void dying.run.commit();
    expect(await parts.store.listAuditEntries()).toEqual([]);
    expect((await parts.store.getInteraction('interaction-1'))?.status).toBe('responded');
    // The run that takes over applies it again, and commits.
    const again = await parts.openRun();
    const decided = await parts.applier.apply(
      waiting(),
      present(again.run.interaction('interaction-1')),
      again.context,
      'agent',
    );
    await again.settle(decided, 'interaction-1');
    await again.run.commit();
    expect(decided.call).toMatchObject({ phase: 'ready' });
    expect(await parts.store.listAuditEntries()).toEqual([
      expect.objectContaining({ decidedBy: 'person', interactionId: 'interaction-1', toolCallId: 'c1' }),
    ]);
    expect((await parts.store.getInteraction('interaction-1'))?.status).toBe('processed');
    // Audited only in the unit that consumes the answer: once that is stored, the answer is never applied again.
    const units = parts.store.committedUnits();
    const auditing = units.filter((unit) => unit.audit?.some((draft) => draft.entry.interactionId === 'interaction-1'));
    expect(auditing).toEqual([consumingUnit(units)]);
  });

  it('ends the call TIMEOUT when nobody answered in time, and leaves the failed wait as it is (F14, F28)', async () => {
    const parts = await turnParts({
      thread: threadWithTurn([waiting()], { status: 'waiting', pendingInteractionIds: ['interaction-1'] }),
      seed: async (store) => {
        await committed(store, { interactions: [{ kind: 'open', interaction: question() }] });
        await committed(store, {
          interactions: [
            {
              kind: 'fail',
              interactionId: 'interaction-1',
              reason: 'timeout',
              message: 'nobody answered',
              at: '2026-01-02T03:05:05.678Z',
            },
          ],
        });
      },
      claimed: false,
    });
    const { call, effects } = await applyAnswer(parts);
    expect(call).toMatchObject({ phase: 'done', status: 'TIMEOUT' });
    expect(effects.interactions ?? []).toEqual([]);
    expect(await parts.store.getInteraction('interaction-1')).toMatchObject({
      status: 'failed',
      failureReason: 'timeout',
      failureMessage: 'nobody answered',
    });
    expect(parts.eventTypes()).toEqual(['USER_INTERACTION_FAILED', 'TOOL_CALL_FAILED']);
    expect(await parts.audit()).toEqual([
      { decidedBy: 'interaction:timeout', outcome: 'deny', rule: 'ask:risk:MEDIUM' },
    ]);
  });
});
