import { describe, expect, it, vi } from 'vitest';
import type { ApprovalOptions } from '../policy/approval-options.js';
import { SessionMemory } from '../policy/session-memory.js';
import { committed, present } from '../testing/conformance/store-records.js';
import type { TurnOptions } from './turn-state.js';
import { argumentsOf, newTurnCall, type NewCall } from './turn-state.js';
import { TOOL_PINS_SCOPE } from './tool-pins.js';
import { clock, threadWithTurn, turnOf, turnParts } from './__fixtures__/turn-parts.js';

const OPTIONS = { nodeId: 'agent', allowedTools: ['note', 'lookup'] };

/**
 * A CallDecider over parts built by hand, deciding `call` (new in the thread's turn) the way
 * the pipeline does: its decision applied as one step, then committed.
 */
async function decide(call: NewCall, approval: ApprovalOptions = {}, options: TurnOptions = OPTIONS) {
  const parts = await turnParts({ approval, thread: threadWithTurn([call]) });
  const decided = await parts.decider.decide(call, parts.context, options);
  await parts.settle(decided);
  await parts.run.commit();
  return { ...parts, decided, call: decided.call };
}

const note = (text: unknown = 'x') => newTurnCall({ id: 'c1', name: 'note', arguments: { text } });

describe('CallDecider (a new call: admission, the rules, an automatic approver)', () => {
  it('refuses a call to a tool the node does not offer, without asking, and announces it failed (F13)', async () => {
    const { call, eventTypes, audit } = await decide(note(), {}, { ...OPTIONS, allowedTools: ['lookup'] });
    expect(call).toMatchObject({ phase: 'done', status: 'NOT_FOUND' });
    expect(eventTypes()).toEqual(['TOOL_CALL_REQUESTED', 'TOOL_CALL_FAILED']);
    expect(await audit()).toEqual([{ decidedBy: 'tool:not-offered', outcome: 'deny', rule: 'tool:not-offered' }]);
  });

  it('refuses arguments that do not fit the schema, and never runs them (F13)', async () => {
    const { call, runs } = await decide(newTurnCall({ id: 'c1', name: 'lookup', arguments: { word: 42 } }));
    expect(call).toMatchObject({ phase: 'done' });
    expect(call.phase === 'done' && call.status).not.toBe('SUCCESS');
    expect(runs).toEqual([]);
  });

  it('approves what a rule allows, audits the rule and pins nothing it does not pin (F14)', async () => {
    const { call, store, audit, eventTypes } = await decide(
      newTurnCall({ id: 'c1', name: 'lookup', arguments: { word: 'ox' } }),
    );
    expect(call).toMatchObject({ phase: 'ready', arguments: { word: 'ox' } });
    expect(argumentsOf(call)).toEqual({ word: 'ox' });
    expect(await audit()).toEqual([{ decidedBy: call.rule, outcome: 'allow', rule: call.rule }]);
    expect(eventTypes()).toEqual(['TOOL_CALL_REQUESTED', 'TOOL_CALL_DECIDED']);
    expect(await store.getGlobalVariables(TOOL_PINS_SCOPE)).toEqual({});
  });

  it('audits a decision in the commit that moves the call on: the audit entry and the ready call are one unit (F33)', async () => {
    const { store } = await decide(newTurnCall({ id: 'c1', name: 'lookup', arguments: { word: 'ox' } }));
    const withAudit = store.committedUnits().filter((unit) => unit.audit?.length);
    expect(withAudit).toHaveLength(1);
    const unit = present(withAudit[0]);
    expect(unit.thread?.kind).toBe('save');
    const saved = unit.thread?.kind === 'save' ? unit.thread.thread : undefined;
    expect(turnOf(present(saved)).calls).toEqual([expect.objectContaining({ id: 'c1', phase: 'ready' })]);
    expect(unit.audit).toEqual([expect.objectContaining({ entry: expect.objectContaining({ toolCallId: 'c1' }) })]);
  });

  it('leaves a call the rules ask about to a person: still new, with its rule, nothing audited yet (F15)', async () => {
    const { call, audit } = await decide(note());
    expect(call).toMatchObject({ phase: 'new', rule: 'ask:risk:MEDIUM', rememberable: true });
    expect(await audit()).toEqual([]);
  });

  it('denies what a deny rule names, audited, before any approver is asked (F14, F16)', async () => {
    let asked = 0;
    const { call, audit } = await decide(note(), {
      toolOverrides: { note: 'deny' },
      onToolApprove: () => {
        asked += 1;
        return true;
      },
    });
    expect(call).toMatchObject({ phase: 'done', status: 'EXECUTION_REJECTED' });
    expect(asked).toBe(0);
    expect((await audit()).map((entry) => entry.outcome)).toEqual(['deny']);
  });

  it('lets onToolApprove answer for a person: a no ends the call rejected, audited as the callback (F26)', async () => {
    const { call, audit } = await decide(note(), { onToolApprove: () => false });
    expect(call).toMatchObject({ phase: 'done', status: 'EXECUTION_REJECTED' });
    expect(await audit()).toEqual([{ decidedBy: 'callback:onToolApprove', outcome: 'deny', rule: 'ask:risk:MEDIUM' }]);
  });

  it('runs what the bus handler approves, with its edit (F26)', async () => {
    const parts = await turnParts({ thread: threadWithTurn([note()]) });
    parts.bus.registerHandler('toolApproval', () => ({ approved: true, params: { text: 'edited' } }));
    const { call } = await parts.decider.decide(note(), parts.context, OPTIONS);
    expect(call).toMatchObject({ phase: 'ready', finalArguments: { text: 'edited' } });
  });

  it('approves a call remembered for this session without asking (F30)', async () => {
    const parts = await turnParts({ thread: threadWithTurn([note()]) });
    const memory = present(
      parts.policy.memoryEntry({ toolName: 'note', arguments: { text: 'x' } }, { channel: 'cli', chatId: 'session-1' }),
    );
    await committed(parts.store, { remember: [memory] });
    const { call } = await parts.decider.decide(note(), parts.context, OPTIONS);
    expect(call).toMatchObject({ phase: 'ready', rule: 'memory:session' });
  });

  describe("with the remembered approvals a worker's job brought (issue 38)", () => {
    const SCOPE = { channel: 'cli', chatId: 'session-1' };
    const HOUR = 3_600_000;
    /** The parts of a run whose thread came with these entries of `scope`; the store's reads of remembered approvals are counted. */
    async function carried(entries: (key: string) => Record<string, number>, scope = SCOPE) {
      const probe = await turnParts();
      const key = present(probe.policy.memoryEntry({ toolName: 'note', arguments: { text: 'x' } }, SCOPE)).key;
      const parts = await turnParts({
        thread: threadWithTurn([note()]),
        remembered: { scope: SessionMemory.scopeKey(scope), entries: entries(key) },
      });
      const reads = vi.spyOn(parts.store, 'isApprovalRemembered');
      return { ...parts, key, reads };
    }

    it('approves a call they hold without reading the store', async () => {
      const parts = await carried((key) => ({ [key]: clock.now() + HOUR }));
      const { call } = await parts.decider.decide(note(), parts.context, OPTIONS);
      expect(call).toMatchObject({ phase: 'ready', rule: 'memory:session' });
      expect(parts.reads).not.toHaveBeenCalled();
    });

    it('asks for a call they do not hold, or hold expired, even if the store remembers it since: never the other way round', async () => {
      for (const entries of [() => ({}), (key: string) => ({ [key]: clock.now() - 1 })]) {
        const parts = await carried(entries);
        await committed(parts.store, { remember: [{ key: parts.key, expiresAt: clock.now() + HOUR }] });
        const { call } = await parts.decider.decide(note(), parts.context, OPTIONS);
        expect(call).toMatchObject({ phase: 'new', rule: 'ask:risk:MEDIUM' });
        expect(parts.reads).not.toHaveBeenCalled();
      }
    });

    it('reads the store when they are of another scope', async () => {
      const parts = await carried((key) => ({ [key]: clock.now() + HOUR }), { channel: 'cli', chatId: 'another' });
      await committed(parts.store, { remember: [{ key: parts.key, expiresAt: clock.now() + HOUR }] });
      const { call } = await parts.decider.decide(note(), parts.context, OPTIONS);
      expect(call).toMatchObject({ phase: 'ready', rule: 'memory:session' });
      expect(parts.reads).toHaveBeenCalledTimes(1);
    });

    it('holds what the run itself remembers in its scope, for its next call', async () => {
      const parts = await carried(() => ({}));
      const memory = present(parts.policy.memoryEntry({ toolName: 'note', arguments: { text: 'x' } }, SCOPE));
      expect(memory.scope).toBe(SessionMemory.scopeKey(SCOPE));
      await parts.context.apply({ next: parts.context.thread, effects: { remember: [memory] } });
      const { call } = await parts.decider.decide(note(), parts.context, OPTIONS);
      expect(call).toMatchObject({ phase: 'ready', rule: 'memory:session' });
      expect(parts.reads).not.toHaveBeenCalled();
    });
  });
});
