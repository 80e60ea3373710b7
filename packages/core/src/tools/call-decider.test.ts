import { describe, expect, it } from 'vitest';
import type { ApprovalOptions } from '../policy/approval-options.js';
import { CallDecider } from './call-decider.js';
import { newTurnCall } from './turn-state.js';
import { turnParts } from './__fixtures__/turn-parts.js';

const OPTIONS = { nodeId: 'agent', allowedTools: ['note', 'lookup'] };

/** A CallDecider over hand-built parts, and what it recorded. */
async function decider(approval: ApprovalOptions = {}) {
  const parts = await turnParts(approval);
  const decide = new CallDecider(parts.tools, parts.policy, parts.bus, parts.pins, parts.recorder, {
    now: () => Date.now(),
  });
  const audit = async () =>
    (await parts.store.listAuditEntries()).map(({ decidedBy, outcome, rule }) => ({ decidedBy, outcome, rule }));
  return { ...parts, decider: decide, audit };
}

describe('CallDecider (a new call: admission, the rules, an automatic approver)', () => {
  it('refuses a call to a tool the node does not offer, without asking, and announces it failed (F13)', async () => {
    const { decider: d, context, eventTypes } = await decider();
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'note', arguments: { text: 'x' } }), context, {
      ...OPTIONS,
      allowedTools: ['lookup'],
    });
    expect(call).toMatchObject({ phase: 'done', status: 'NOT_FOUND' });
    expect(eventTypes()).toEqual(['TOOL_CALL_REQUESTED', 'TOOL_CALL_FAILED']);
  });

  it('refuses arguments that do not fit the schema, and never runs them (F13)', async () => {
    const { decider: d, context, runs } = await decider();
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'lookup', arguments: { word: 42 } }), context, OPTIONS);
    expect(call).toMatchObject({ phase: 'done' });
    expect(call.phase === 'done' && call.status).not.toBe('SUCCESS');
    expect(runs).toEqual([]);
  });

  it('approves what a rule allows, audits the rule and pins nothing it does not pin (F14)', async () => {
    const { decider: d, context, audit, eventTypes } = await decider();
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'lookup', arguments: { word: 'ox' } }), context, OPTIONS);
    expect(call).toMatchObject({ phase: 'ready', finalArguments: { word: 'ox' } });
    expect(await audit()).toEqual([{ decidedBy: call.rule, outcome: 'allow', rule: call.rule }]);
    expect(eventTypes()).toEqual(['TOOL_CALL_REQUESTED', 'TOOL_CALL_DECIDED']);
  });

  it('leaves a call the rules ask about to a person: still new, with its rule, nothing audited yet (F15)', async () => {
    const { decider: d, context, audit } = await decider();
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'note', arguments: { text: 'x' } }), context, OPTIONS);
    expect(call).toMatchObject({ phase: 'new', rule: 'ask:risk:MEDIUM', rememberable: true });
    expect(await audit()).toEqual([]);
  });

  it('denies what a deny rule names, audited, before any approver is asked (F14, F16)', async () => {
    let asked = 0;
    const {
      decider: d,
      context,
      audit,
    } = await decider({
      toolOverrides: { note: 'deny' },
      onToolApprove: () => {
        asked += 1;
        return true;
      },
    });
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'note', arguments: { text: 'x' } }), context, OPTIONS);
    expect(call).toMatchObject({ phase: 'done', status: 'EXECUTION_REJECTED' });
    expect(asked).toBe(0);
    expect((await audit()).map((entry) => entry.outcome)).toEqual(['deny']);
  });

  it('lets onToolApprove answer for a person: a no ends the call rejected, audited as the callback (F26)', async () => {
    const { decider: d, context, audit } = await decider({ onToolApprove: () => false });
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'note', arguments: { text: 'x' } }), context, OPTIONS);
    expect(call).toMatchObject({ phase: 'done', status: 'EXECUTION_REJECTED' });
    expect(await audit()).toEqual([{ decidedBy: 'callback:onToolApprove', outcome: 'deny', rule: 'ask:risk:MEDIUM' }]);
  });

  it('runs what the bus handler approves, with its edit (F26)', async () => {
    const { decider: d, context, bus } = await decider();
    bus.registerHandler('toolApproval', () => ({ approved: true, params: { text: 'edited' } }));
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'note', arguments: { text: 'x' } }), context, OPTIONS);
    expect(call).toMatchObject({ phase: 'ready', finalArguments: { text: 'edited' } });
  });

  it('approves a call remembered for this session without asking (F30)', async () => {
    const { decider: d, context, policy } = await decider();
    await policy.remember({ toolName: 'note', arguments: { text: 'x' } }, { channel: 'cli', chatId: 'session-1' });
    const call = await d.decide(newTurnCall({ id: 'c1', name: 'note', arguments: { text: 'x' } }), context, OPTIONS);
    expect(call).toMatchObject({ phase: 'ready', rule: 'memory:session' });
  });
});
