import { expect } from 'vitest';
import { answer, approve, EDITED, given, message, needsQuorum, NOW, reject, type Row } from './answer-seen.js';

/*
 * planAnswer's rows for a call that needs several approvers (F51): who may count (never the
 * thread's requester nor the call's — who asked for it in a chat), each person once, only
 * approvals of the same arguments, escalation approvers once the call escalated.
 */

export const quorumRows: Row[] = [
  [
    'the first of two approvals',
    { interaction: needsQuorum(2) },
    approve,
    'web:ada',
    {
      kind: 'count',
      given: 1,
      required: 2,
      change: expect.objectContaining({ kind: 'approve-partially', seen: 0 }),
      audit: expect.objectContaining({ rule: 'quorum:partial', responder: 'web:ada' }),
    },
  ],
  [
    'an approval counted before, again',
    { interaction: { ...needsQuorum(2), quorum: { approvals: [given('web:ada')] } } },
    approve,
    'web:ada',
    { kind: 'repeat', counted: { given: 1, required: 2 } },
  ],
  [
    'the last approval: with the answer, in one unit',
    { interaction: { ...needsQuorum(2), quorum: { approvals: [given('web:bob')] } } },
    approve,
    'web:ada',
    { kind: 'fold', changes: [expect.objectContaining({ kind: 'approve-partially', seen: 1 }), answer] },
  ],
  [
    'an edit resets the approvals of other arguments',
    { interaction: { ...needsQuorum(2), quorum: { approvals: [given('web:bob')] } } },
    { value: { approved: true, editedParameters: EDITED } },
    'web:ada',
    { kind: 'count', given: 1, change: expect.objectContaining({ seen: 0 }) },
  ],
  [
    'a rejection ends the call, from anyone',
    { interaction: needsQuorum(2), thread: { session: { sessionId: 's', requestedBy: 'web:ada' } } },
    reject,
    'web:ada',
    { kind: 'fold' },
  ],
  [
    'an approval without a responder',
    { interaction: needsQuorum(2) },
    approve,
    undefined,
    { kind: 'refuse', reason: 'not-allowed', error: expect.objectContaining({ code: 'APPROVAL_NOT_ALLOWED' }) },
  ],
  [
    "the thread's requester",
    { interaction: needsQuorum(2), thread: { session: { sessionId: 's', requestedBy: 'web:ada' } } },
    approve,
    'web:ada',
    {
      kind: 'refuse',
      reason: 'not-allowed',
      error: expect.objectContaining({ details: expect.objectContaining({ reason: 'requester' }) }),
    },
  ],
  [
    "the call's requester: who asked for it in the chat",
    { interaction: needsQuorum(2), others: [message('slack:ada')] },
    approve,
    'web:ada',
    {
      kind: 'refuse',
      reason: 'not-allowed',
      error: expect.objectContaining({ message: expect.stringContaining('asked for this call') }),
    },
  ],
  [
    "someone else than the call's requester",
    { interaction: needsQuorum(2), others: [message('slack:bob')] },
    approve,
    'web:ada',
    { kind: 'count', given: 1 },
  ],
  [
    'an escalation approver before the escalation',
    {
      interaction: needsQuorum(2, {
        escalation: { at: new Date(NOW + 60_000).toISOString(), approvers: ['web:erin'], escalated: false },
      }),
    },
    approve,
    'web:erin',
    {
      kind: 'refuse',
      reason: 'not-allowed',
      error: expect.objectContaining({ details: expect.objectContaining({ reason: 'not-escalated' }) }),
    },
  ],
  [
    'an escalation approver once its time passed',
    {
      interaction: needsQuorum(2, {
        escalation: { at: new Date(NOW - 1).toISOString(), approvers: ['web:erin'], escalated: false },
      }),
    },
    approve,
    'web:erin',
    { kind: 'count', given: 1 },
  ],
];
