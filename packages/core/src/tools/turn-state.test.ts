import { describe, expect, it } from 'vitest';
import { InterlockError } from '../errors/interlock-error.js';
import {
  abandon,
  approve,
  argumentsOf,
  awaitAnswer,
  awaitRecovery,
  awaitResult,
  describeCall,
  finish,
  isAwaiting,
  newTurnCall,
  stageOf,
  withArguments,
  type AwaitingCall,
  type TurnCall,
} from './turn-state.js';

/** A call to `note` as the model proposed it, already decided by a rule. */
function proposed() {
  return {
    ...newTurnCall({ id: 'call-1', name: 'note', arguments: { text: 'hello' } }),
    rule: 'ask:risk:MEDIUM',
    rememberable: true,
  };
}

describe('newTurnCall (a call as the model proposed it)', () => {
  it('runs the proposed arguments unless something changes them', () => {
    expect(newTurnCall({ id: 'call-1', name: 'note', arguments: { text: 'hello' } })).toStrictEqual({
      id: 'call-1',
      name: 'note',
      arguments: { text: 'hello' },
      phase: 'new',
    });
    expect(argumentsOf(newTurnCall({ id: 'call-1', name: 'note', arguments: { text: 'hello' } }))).toEqual({
      text: 'hello',
    });
  });

  it('keeps the arguments that run apart only when they differ from the proposed ones (one copy in a stored turn)', () => {
    const call = newTurnCall({ id: 'call-1', name: 'note', arguments: { text: 'hello', n: 1 } });
    expect(withArguments(call, { n: 1, text: 'hello' })).not.toHaveProperty('finalArguments');
    const edited = withArguments(call, { text: 'edited', n: 1 });
    expect(argumentsOf(edited)).toEqual({ text: 'edited', n: 1 });
    expect(edited.arguments).toEqual({ text: 'hello', n: 1 });
    expect(withArguments(edited, { text: 'hello', n: 1 })).not.toHaveProperty('finalArguments');
  });

  it('replaces arguments that are not plain JSON by {} and says why, so only that call is refused (F19)', () => {
    const call = newTurnCall({ id: 'call-1', name: 'note', arguments: { count: Number.NaN } });
    expect(call.arguments).toEqual({});
    expect(argumentsOf(call)).toEqual({});
    expect(call.argumentsError).toMatch(/^they are not plain JSON: NaN at .*count/);
  });

  it("keeps the provider's own complaint about the arguments", () => {
    const call = newTurnCall({ id: 'call-1', name: 'note', arguments: {}, argumentsError: 'truncated JSON' });
    expect(call.argumentsError).toBe('truncated JSON');
  });
});

describe('the transitions of a call', () => {
  it('approve drops the interaction the call waited on and says who approved it', () => {
    const ready = approve(awaitAnswer(proposed(), 'execution', 'interaction-1'), 'person:ada');
    expect(ready).toStrictEqual({ ...proposed(), approvedBy: 'person:ada', phase: 'ready' });
    expect(ready).not.toHaveProperty('interactionId');
  });

  it('approve with edited arguments runs the edit and keeps what the model proposed (F19)', () => {
    const ready = approve(proposed(), 'person', { text: 'edited' });
    expect(ready.finalArguments).toEqual({ text: 'edited' });
    expect(ready.arguments).toEqual({ text: 'hello' });
  });

  it('approve without a new approver keeps the one that approved it before (a retry after a crash)', () => {
    const first = approve(proposed(), 'callback:onToolApprove');
    expect(approve(awaitRecovery(first), undefined)).toMatchObject({
      phase: 'ready',
      approvedBy: 'callback:onToolApprove',
    });
  });

  it('awaitAnswer moves a call to the phase of the question asked', () => {
    expect(awaitAnswer(proposed(), 'execution', 'i-1')).toMatchObject({
      phase: 'awaiting-approval',
      interactionId: 'i-1',
    });
    expect(awaitAnswer(awaitRecovery(approve(proposed(), 'rule')), 'recovery', 'i-2')).toMatchObject({
      phase: 'awaiting-recovery',
      interactionId: 'i-2',
    });
  });

  it('awaitAnswer for the result keeps the result a person is asked about (F13)', () => {
    const ran = awaitResult(approve(proposed(), 'rule'), { lines: 3 });
    expect(ran).not.toHaveProperty('interactionId');
    expect(awaitAnswer(ran, 'result', 'i-3')).toStrictEqual({ ...ran, interactionId: 'i-3' });
  });

  it('awaitRecovery forgets the interaction of an earlier question', () => {
    const waiting = awaitAnswer(approve(proposed(), 'rule'), 'recovery', 'i-old');
    expect(awaitRecovery(waiting)).not.toHaveProperty('interactionId');
  });

  it('a finished call carries no interaction and no pending result, only its outcome (F14)', () => {
    const asked = awaitAnswer(awaitResult(approve(proposed(), 'rule'), 'secret'), 'result', 'i-4');
    const rejected = finish(asked, 'RESULT_REJECTED', 'not for the model');
    expect(rejected).not.toHaveProperty('interactionId');
    expect(rejected).not.toHaveProperty('result');
    expect(rejected).not.toHaveProperty('output');
    expect(rejected).toMatchObject({
      phase: 'done',
      status: 'RESULT_REJECTED',
      content: expect.stringContaining('withheld its result: not for the model'),
    });
  });

  it('a successful call keeps its output; the model is told the status first', () => {
    const done = finish(approve(proposed(), 'rule'), 'SUCCESS', { saved: true });
    expect(done).toMatchObject({ status: 'SUCCESS', output: { saved: true }, content: '[SUCCESS] {"saved":true}' });
  });

  it('a tool that timed out tells the model to check whether it took effect', () => {
    const done = finish(
      approve(proposed(), 'rule'),
      'TIMEOUT',
      new InterlockError('TOOL_TIMEOUT', 'note did not answer within 5 s'),
    );
    expect(done.content).toBe(
      '[TIMEOUT] note did not answer within 5 s. Check whether it took effect before you call it again.',
    );
  });

  it('finishing keeps what the audit and the write-ahead record need: rule, approver, instruction, responder', () => {
    const call = {
      ...approve(proposed(), 'person:ada', { text: 'edited' }),
      userInstruction: 'be brief',
      responder: 'ada',
    };
    expect(finish(call, 'ERROR', 'disk full')).toMatchObject({
      arguments: { text: 'hello' },
      finalArguments: { text: 'edited' },
      rule: 'ask:risk:MEDIUM',
      rememberable: true,
      approvedBy: 'person:ada',
      userInstruction: 'be brief',
      responder: 'ada',
    });
  });
});

describe('isAwaiting and stageOf', () => {
  const ready = approve(proposed(), 'rule');
  it.each<[string, AwaitingCall, string]>([
    ['awaiting-approval', awaitAnswer(proposed(), 'execution', 'i-1'), 'execution'],
    ['awaiting-result', awaitResult(ready, 'out'), 'result'],
    ['awaiting-recovery', awaitRecovery(ready), 'recovery'],
  ])('a call %s waits on the %s question', (_phase, call, stage) => {
    expect(isAwaiting(call)).toBe(true);
    expect(stageOf(call)).toBe(stage);
  });

  it.each<[string, TurnCall]>([
    ['new', proposed()],
    ['ready', ready],
    ['done', finish(ready, 'SUCCESS', 'ok')],
  ])('a %s call waits on nobody', (_phase, call) => {
    expect(isAwaiting(call)).toBe(false);
  });
});

describe('abandon (nobody will answer about a call any more)', () => {
  const ready = approve(proposed(), 'rule');
  it.each<[string, TurnCall, string, string]>([
    [
      'a call not yet run did not run',
      awaitAnswer(proposed(), 'execution', 'i-1'),
      'EXECUTION_REJECTED',
      'This call was not run',
    ],
    ['a call that ran has its result withheld', awaitResult(ready, 'out'), 'RESULT_REJECTED', 'The call ran'],
    ['a call whose outcome is unknown may have taken effect', awaitRecovery(ready), 'ERROR', 'may have taken effect'],
  ])('%s (F13, F40)', (_case, call, status, told) => {
    const done = abandon(call, 'the thread was cancelled');
    expect(done).toMatchObject({ phase: 'done', status, content: expect.stringContaining(told) });
    expect(done).not.toHaveProperty('output');
  });
});

describe('the checkpoint format (F21, F40)', () => {
  const ready = approve(proposed(), 'person:ada', { text: 'edited' });
  it.each<[string, TurnCall]>([
    ['new', newTurnCall({ id: 'call-1', name: 'note', arguments: {}, argumentsError: 'truncated JSON' })],
    ['ready', ready],
    ['awaiting-approval', awaitAnswer(proposed(), 'execution', 'i-1')],
    ['awaiting-result', awaitAnswer(awaitResult(ready, { rows: [1, 2] }), 'result', 'i-2')],
    ['awaiting-recovery', awaitAnswer(awaitRecovery(ready), 'recovery', 'i-3')],
    ['done', finish(ready, 'SUCCESS', { rows: [1, 2] })],
  ])('a %s call reads back from JSON as itself', (_phase, call) => {
    expect(JSON.parse(JSON.stringify(call))).toStrictEqual(call);
  });
});

describe('describeCall', () => {
  it('tells events the arguments that run, not the ones proposed', () => {
    expect(describeCall(approve(proposed(), 'person', { text: 'edited' }), 'agent')).toEqual({
      nodeId: 'agent',
      toolCallId: 'call-1',
      toolName: 'note',
      arguments: { text: 'edited' },
    });
  });
});
