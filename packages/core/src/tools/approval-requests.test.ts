import { describe, expect, it } from 'vitest';
import { ToolApprovalDetails, type InteractionFailureReason } from '@interlock/sdk-types';
import type { InteractionRecord } from '../persistence/checkpoint-store.js';
import { interactionRecord } from '../testing/conformance/store-records.js';
import { approvalSpecs, readAnswer } from './approval-requests.js';
import { approve, awaitAnswer, awaitRecovery, awaitResult, newTurnCall, type AwaitingCall } from './turn-state.js';
import { noteTool } from '../testing/index.js';

const note = noteTool();
const toolOf = (name: string) => (name === note.name ? note : undefined);

/** A call a rule left to a person; MEDIUM risk, so "remember for this session" may be offered. */
function decided(id = 'call-1', rememberable = true) {
  return { ...newTurnCall({ id, name: 'note', arguments: { text: 'hello' } }), rule: 'ask:risk:MEDIUM', rememberable };
}
const askedToRun = (rememberable = true) => awaitAnswer(decided('call-1', rememberable), 'execution', 'interaction-1');
const askedAboutResult = (rememberable = true) =>
  awaitAnswer(
    awaitResult(approve(decided('call-1', rememberable), 'person'), 'noted hello'),
    'result',
    'interaction-1',
  );
const askedToRecover = () =>
  awaitAnswer(awaitRecovery(approve(decided(), 'callback:onToolApprove')), 'recovery', 'interaction-1');

const answered = (input: unknown, responder?: string): InteractionRecord =>
  interactionRecord({
    status: 'responded',
    response: { input, respondedAt: '2026-01-02T03:04:30.000Z', ...(responder === undefined ? {} : { responder }) },
  });
const failed = (failureReason: InteractionFailureReason | undefined, failureMessage?: string): InteractionRecord =>
  interactionRecord({
    status: 'failed',
    ...(failureReason === undefined ? {} : { failureReason }),
    ...(failureMessage === undefined ? {} : { failureMessage }),
  });

const acceptEdits = () => undefined;
const read = (
  call: AwaitingCall,
  record: InteractionRecord,
  automaticMemory = false,
  refuseEdit: (edited: Record<string, unknown>) => string | undefined = acceptEdits,
) => readAnswer(call, record, refuseEdit, automaticMemory);

describe('approvalSpecs (the questions for a batch of calls)', () => {
  const on = { nodeId: 'agent', timeout: 60_000, toolOf };

  it('asks one question per call, batched so a surface can show them together (F15, F18)', () => {
    const calls = [decided('call-1'), decided('call-2'), decided('call-3')];
    const specs = approvalSpecs(calls, 'execution', on);
    expect(specs.map((spec) => spec.toolApproval?.batch)).toEqual([
      { id: 'agent:call-1', index: 0, size: 3 },
      { id: 'agent:call-1', index: 1, size: 3 },
      { id: 'agent:call-1', index: 2, size: 3 },
    ]);
    expect(specs.map((spec) => spec.toolApproval?.toolCallId)).toEqual(['call-1', 'call-2', 'call-3']);
  });

  it('tells the approver the tool, the arguments that would run, its risk and the rule that asked (F18)', () => {
    const call = { ...decided(), finalArguments: { text: 'parsed' } };
    const [spec] = approvalSpecs([call], 'execution', on);
    expect(spec).toMatchObject({
      nodeId: 'agent',
      operationType: 'TOOL_APPROVAL',
      prompt: 'Allow note to run with these arguments?',
      timeout: 60_000,
    });
    expect(spec?.toolApproval).toEqual({
      toolCallId: 'call-1',
      toolName: 'note',
      toolDescription: 'Writes a note',
      toolParameters: { text: 'parsed' },
      parametersSchema: note.jsonSchema,
      category: 'write',
      riskLevel: 'MEDIUM',
      rule: 'ask:risk:MEDIUM',
      stage: 'execution',
      rememberable: true,
      batch: { id: 'agent:call-1', index: 0, size: 1 },
    });
    expect(() => ToolApprovalDetails.parse(spec?.toolApproval)).not.toThrow();
  });

  it('asks about a tool it does not know as the riskiest kind, without a schema', () => {
    const [spec] = approvalSpecs([{ ...decided(), name: 'ghost' }], 'execution', on);
    expect(spec?.toolApproval).toMatchObject({ toolDescription: '', category: 'command', riskLevel: 'HIGH' });
    expect(spec?.toolApproval).not.toHaveProperty('parametersSchema');
  });

  it('mentions a definition change in the prompt of that call only, with the change attached', () => {
    const change = { previousHash: 'aaa', hash: 'bbb', diff: '- old\n+ new' };
    const specs = approvalSpecs([decided('call-1'), decided('call-2')], 'execution', {
      ...on,
      changes: [undefined, change],
    });
    expect(specs[0]?.prompt).toBe('Allow note to run with these arguments?');
    expect(specs[0]?.toolApproval).not.toHaveProperty('definitionChange');
    expect(specs[1]?.prompt).toBe(
      'The definition of note changed since it was approved (see the diff). Allow note to run with these arguments?',
    );
    expect(specs[1]?.toolApproval?.definitionChange).toEqual(change);
  });

  it('shows the result only when the result is what is asked about (F13)', () => {
    const ran = awaitResult(approve(decided(), 'person'), { secret: 'value' });
    const [resultSpec] = approvalSpecs([ran], 'result', on);
    expect(resultSpec?.prompt).toBe('Let the model see the result of note?');
    expect(resultSpec?.toolApproval).toMatchObject({ stage: 'result', result: { secret: 'value' } });
    const [executionSpec] = approvalSpecs([decided()], 'execution', on);
    expect(executionSpec?.toolApproval).not.toHaveProperty('result');
  });

  it('offers "remember for this session" only before the call runs', () => {
    const ran = awaitResult(approve(decided('call-1', true), 'person'), 'out');
    expect(approvalSpecs([ran], 'result', on)[0]?.toolApproval?.rememberable).toBe(false);
    expect(approvalSpecs([awaitRecovery(ran)], 'recovery', on)[0]?.toolApproval?.rememberable).toBe(false);
    expect(approvalSpecs([decided('call-1', false)], 'execution', on)[0]?.toolApproval?.rememberable).toBe(false);
  });

  it('asks about an unknown outcome with the three answers a person can give (F40)', () => {
    const [spec] = approvalSpecs([awaitRecovery(approve(decided(), 'rule'))], 'recovery', on);
    expect(spec?.prompt).toMatch(
      /^note started before the process stopped and its outcome is unknown\. .*\(done\).*\(retry\).*\(failed\)\?$/,
    );
    expect(spec?.toolApproval?.stage).toBe('recovery');
  });
});

describe('readAnswer (how an answer moves its call)', () => {
  describe('a wait that failed (F28)', () => {
    it('ends a call nobody approved in time as TIMEOUT, audited as a denial', () => {
      const reading = read(askedToRun(), failed('timeout', 'nobody answered within 60 s'));
      expect(reading).toMatchObject({
        kind: 'failed',
        reason: 'timeout',
        message: 'nobody answered within 60 s',
        audit: {
          outcome: 'deny',
          decidedBy: 'interaction:timeout',
          rule: 'ask:risk:MEDIUM',
          reason: 'nobody answered within 60 s',
          stage: 'execution',
        },
        next: { phase: 'done', status: 'TIMEOUT' },
      });
    });

    it('ends a call whose question was cancelled as EXECUTION_REJECTED, saying why', () => {
      const reading = read(askedToRun(), failed('cancelled', 'the approver closed the prompt'));
      expect(reading.next).toMatchObject({
        status: 'EXECUTION_REJECTED',
        content: expect.stringContaining('no approval (cancelled): the approver closed the prompt'),
      });
    });

    it.each<InteractionFailureReason>(['timeout', 'cancelled'])(
      'never tells the model that a call whose outcome is unknown did not run when nobody says what became of it (%s, F40)',
      (reason) => {
        const reading = read(askedToRecover(), failed(reason, 'gone'));
        expect(reading.next).toMatchObject({
          phase: 'done',
          status: 'ERROR',
          content: expect.stringContaining('may have taken effect'),
        });
        expect(reading.next).not.toMatchObject({ content: expect.stringContaining('not run') });
        expect(reading.audit).toMatchObject({ outcome: 'deny', stage: 'recovery' });
      },
    );

    it('treats a failure without a reason as a handler error', () => {
      expect(read(askedToRun(), failed(undefined))).toMatchObject({
        reason: 'handler_error',
        message: 'handler_error',
        audit: { decidedBy: 'interaction:handler_error' },
      });
    });

    it.each<InteractionFailureReason>(['timeout', 'cancelled'])(
      'withholds the result when the question about it failed (%s): RESULT_REJECTED (F13)',
      (reason) => {
        const reading = read(askedAboutResult(), failed(reason, 'gone'));
        expect(reading.next).toMatchObject({
          phase: 'done',
          status: 'RESULT_REJECTED',
          content: expect.stringContaining(`no approval (${reason})`),
        });
        expect(reading.next).not.toHaveProperty('output');
        expect(reading.next).not.toHaveProperty('result');
        expect(reading.audit.stage).toBe('result');
      },
    );
  });

  describe('an answer to "may it run?" (F19)', () => {
    it('runs the edited arguments, keeps the proposed ones, and audits the edit', () => {
      const reading = read(
        askedToRun(),
        answered({ approved: true, editedParameters: { text: 'edited' }, userInstruction: 'sign it' }, 'ada'),
      );
      expect(reading.kind).toBe('answered');
      expect(reading.next).toMatchObject({
        phase: 'ready',
        arguments: { text: 'hello' },
        finalArguments: { text: 'edited' },
        approvedBy: 'person:ada',
        userInstruction: 'sign it',
        responder: 'ada',
      });
      expect(reading.next).not.toHaveProperty('interactionId');
      expect(reading.audit).toEqual({
        outcome: 'allow',
        decidedBy: 'person',
        rule: 'ask:risk:MEDIUM',
        reason: 'approved by a person',
        stage: 'execution',
        responder: 'ada',
        editedArguments: { text: 'edited' },
      });
    });

    it('says the approver was a person when the answer names nobody', () => {
      expect(read(askedToRun(), answered({ approved: true })).next).toMatchObject({
        phase: 'ready',
        approvedBy: 'person',
      });
    });

    it('refuses an edit the tool or the rules refuse: EXECUTION_REJECTED, audited as edit:refused', () => {
      const refusals: Record<string, unknown>[] = [];
      const refuse = (edited: Record<string, unknown>) => {
        refusals.push(edited);
        return 'the edited arguments were refused (deny:rule[0]): no secrets';
      };
      const reading = read(
        askedToRun(),
        answered({ approved: true, editedParameters: { text: 'password' } }, 'ada'),
        false,
        refuse,
      );
      expect(refusals).toEqual([{ text: 'password' }]);
      expect(reading).toMatchObject({
        kind: 'refused-edit',
        responder: 'ada',
        response: { approved: true, editedParameters: { text: 'password' } },
        audit: {
          outcome: 'deny',
          decidedBy: 'person',
          rule: 'edit:refused',
          reason: 'the edited arguments were refused (deny:rule[0]): no secrets',
          stage: 'execution',
        },
        next: {
          phase: 'done',
          status: 'EXECUTION_REJECTED',
          arguments: { text: 'hello' },
          content: expect.stringContaining('no secrets'),
        },
      });
    });

    it('asks nobody to check an edit that comes with a rejection', () => {
      const refuse = () => 'should not be asked';
      const reading = read(askedToRun(), answered({ approved: false, editedParameters: { text: 'x' } }), false, refuse);
      expect(reading).toMatchObject({
        kind: 'answered',
        next: { status: 'EXECUTION_REJECTED', arguments: { text: 'hello' } },
      });
      expect(reading.next).not.toHaveProperty('finalArguments');
      expect(reading.audit).not.toHaveProperty('editedArguments');
    });

    it('ends a rejected call and tells the model why', () => {
      const reading = read(askedToRun(), answered({ approved: false, denyReason: 'wrong file' }, 'ada'));
      expect(reading.next).toMatchObject({
        phase: 'done',
        status: 'EXECUTION_REJECTED',
        content: expect.stringContaining('the user rejected it: wrong file'),
      });
      expect(reading.audit).toMatchObject({ outcome: 'deny', reason: 'wrong file', responder: 'ada' });
    });
  });

  describe('remembering an approval for the session', () => {
    it('remembers when asked to and the call is rememberable', () => {
      expect(read(askedToRun(), answered({ approved: true, remember: true }))).toMatchObject({ remember: true });
    });

    it('never remembers a call that is not rememberable, even when asked to', () => {
      expect(read(askedToRun(false), answered({ approved: true, remember: true }), true)).toMatchObject({
        remember: false,
      });
    });

    it('remembers every approval before it runs when the memory is automatic', () => {
      expect(read(askedToRun(), answered({ approved: true }), true)).toMatchObject({ remember: true });
      expect(read(askedToRun(), answered({ approved: true }), false)).toMatchObject({ remember: false });
    });

    it('never remembers a rejection', () => {
      expect(read(askedToRun(), answered({ approved: false, remember: true }), true)).toMatchObject({
        remember: false,
      });
    });

    it('does not remember automatically an answer about a result', () => {
      expect(read(askedAboutResult(), answered({ approved: true }), true)).toMatchObject({ remember: false });
    });
  });

  describe('an answer about a result (F13)', () => {
    it('lets the result through as the output', () => {
      expect(read(askedAboutResult(), answered({ approved: true })).next).toMatchObject({
        phase: 'done',
        status: 'SUCCESS',
        output: 'noted hello',
        content: '[SUCCESS] noted hello',
      });
    });

    it('withholds it when rejected: RESULT_REJECTED, and the result goes nowhere', () => {
      const reading = read(askedAboutResult(), answered({ approved: false, denyReason: 'has a secret' }));
      expect(reading.next).toMatchObject({
        phase: 'done',
        status: 'RESULT_REJECTED',
        content: expect.stringContaining('has a secret'),
      });
      expect(JSON.stringify(reading.next)).not.toContain('noted hello');
    });
  });

  describe('an answer about an unknown outcome (F40)', () => {
    it.each([
      ['an approval without a resolution never runs it again (issue 37)', { approved: true }, 'fail'],
      ['retry runs it again', { approved: true, resolution: 'retry' }, 'retry'],
      ['a rejection means fail', { approved: false }, 'fail'],
      ['an explicit resolution wins', { approved: true, resolution: 'done' }, 'done'],
      ['fail can come with approved', { approved: true, resolution: 'fail' }, 'fail'],
    ])('%s', (_case, input, resolution) => {
      const reading = read(askedToRecover(), answered(input));
      expect(reading).toMatchObject({ kind: 'answered', resolution, audit: { stage: 'recovery' } });
      expect(reading.next).toMatchObject({ approvedBy: 'callback:onToolApprove' });
    });

    it('says in the audit which of the three answers was given (issue 37)', () => {
      expect(read(askedToRecover(), answered({ approved: true, resolution: 'done' })).audit.reason).toMatch(/^done: /);
      expect(read(askedToRecover(), answered({ approved: true, resolution: 'retry' })).audit.reason).toMatch(
        /^retry: /,
      );
      expect(
        read(askedToRecover(), answered({ approved: false, resolution: 'fail', denyReason: 'disk full' })).audit.reason,
      ).toBe('failed: a person said it failed: disk full');
    });

    it('leaves the call to be resolved, never finished by the answer alone', () => {
      expect(read(askedToRecover(), answered({ approved: true, resolution: 'done' })).next.phase).toBe(
        'awaiting-recovery',
      );
    });
  });
});
