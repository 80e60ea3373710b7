import { afterEach, describe, expect, it } from 'vitest';
import { eventually, request, startHarness, type HarnessOptions, type WebHarness } from './web-harness.js';

/*
 * Approver lists per risk level and per group (F51): a workflow's HIGH-risk calls may need
 * other people than its MEDIUM ones, and a list may name groups. Every surface that answers
 * — the inbox, a turn's batch, the chat — applies the list of the request's level; a refused
 * attempt is answered 403 with the reason and written to the audit trail.
 */

const harnesses: WebHarness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

async function server(options: HarnessOptions = {}): Promise<WebHarness> {
  const harness = await startHarness({
    approvers: ['sam', 'rita', 'olga'],
    groups: { sam: ['sre'], rita: ['release-managers', 'sre'] },
    workflowApprovers: {
      'release-agent': { HIGH: ['group:release-managers'], default: ['group:sre'] },
      'chat-agent': { HIGH: ['group:release-managers'], MEDIUM: ['rita'], default: ['group:sre'] },
    },
    ...options,
  });
  harnesses.push(harness);
  return harness;
}

const respond = (interactionId: string) => `/api/interactions/${interactionId}/respond`;

describe('approver lists per risk level and group (F51)', () => {
  it('shows a workflow to everyone on one of its lists, and lets each answer only the levels their list covers', async () => {
    const harness = await server();
    const { approvals, threadId } = await harness.startReleaseAgent();
    const [notes, deploy] = approvals;
    expect([notes?.toolApproval?.riskLevel, deploy?.toolApproval?.riskLevel]).toEqual(['MEDIUM', 'HIGH']);
    const sam = { token: harness.tokens['sam']! };

    const inbox = await request(harness, '/api/interactions', sam);
    expect(
      inbox.body.interactions.map((item: { toolApproval: { riskLevel: string }; mayAnswer: boolean }) => [
        item.toolApproval.riskLevel,
        item.mayAnswer,
      ]),
    ).toEqual([
      ['HIGH', false],
      ['MEDIUM', true],
    ]);

    const refused = await request(harness, respond(deploy!.interactionId), { ...sam, body: { action: 'approve' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'NOT_AN_APPROVER',
      message: expect.stringContaining('HIGH-risk calls of workflow "release-agent"'),
    });
    expect(refused.body.message).not.toContain('rita');
    expect((await harness.interlock.pending()).map((pending) => pending.interactionId)).toContain(
      deploy!.interactionId,
    );
    expect((await harness.interlock.audit({ threadId })).find((entry) => entry.decidedBy === 'attempt')).toMatchObject({
      rule: 'attempt:refused',
      responder: 'web:sam',
      reason: expect.stringContaining('NOT_AN_APPROVER'),
    });

    expect(
      (await request(harness, respond(notes!.interactionId), { ...sam, body: { action: 'approve' } })).status,
    ).toBe(200);
    const rita = { token: harness.tokens['rita']! };
    expect(
      (await request(harness, respond(deploy!.interactionId), { ...rita, body: { action: 'approve' } })).status,
    ).toBe(200);
  });

  it('gives someone on none of the lists nothing to see, and the same 404 as an id that does not exist', async () => {
    const harness = await server();
    const { approvals } = await harness.startReleaseAgent();
    const olga = { token: harness.tokens['olga']! };
    expect((await request(harness, '/api/interactions', olga)).body.interactions).toEqual([]);
    const answer = await request(harness, respond(approvals[1]!.interactionId), {
      ...olga,
      body: { action: 'approve' },
    });
    expect(answer.status).toBe(404);
    expect((await request(harness, '/api/threads', olga)).body.threads).toEqual([]);
  });

  it('approves the levels of a turn the approver may answer and refuses the others, each with its reason', async () => {
    const harness = await server();
    const { approvals } = await harness.startReleaseAgent();
    const batch = await request(harness, '/api/interactions/approve-batch', {
      token: harness.tokens['sam']!,
      body: { interactionIds: approvals.map((approval) => approval.interactionId) },
    });
    expect(batch.body.results).toEqual([
      expect.objectContaining({ result: 'accepted', interactionId: approvals[0]!.interactionId }),
      expect.objectContaining({
        result: 'refused',
        code: 'NOT_AN_APPROVER',
        message: expect.stringContaining('HIGH-risk calls'),
      }),
    ]);
  });

  it('applies the level lists in the chat: a yes from someone not on the level’s list decides nothing and is audited', async () => {
    const harness = await server();
    const sam = { token: harness.tokens['sam']! };
    const chatId = (await request(harness, '/api/chats', { ...sam, body: {} })).body.chatId as string;
    await request(harness, `/api/chats/${chatId}/messages`, { ...sam, body: { text: 'write the notes' } });
    const approval = await eventually(async () =>
      (await harness.interlock.pending()).find(
        (pending) => pending.session.chatId === chatId && pending.operationType === 'TOOL_APPROVAL',
      ),
    );
    expect(approval.toolApproval?.riskLevel).toBe('MEDIUM');
    const refused = await request(harness, `/api/chats/${chatId}/messages`, { ...sam, body: { text: 'yes' } });
    expect(refused.body.result).toMatchObject({
      kind: 'notice',
      reason: 'not_allowed',
      text: expect.stringContaining('not on the approver list for MEDIUM-risk calls'),
    });
    expect((await harness.interlock.pending()).map((pending) => pending.interactionId)).toContain(
      approval.interactionId,
    );
    expect(
      (await harness.interlock.audit({ threadId: approval.threadId })).find((entry) => entry.decidedBy === 'attempt'),
    ).toMatchObject({ rule: 'attempt:refused', responder: 'sam' });
    const approved = await request(harness, `/api/chats/${chatId}/messages`, {
      token: harness.tokens['rita']!,
      body: { text: 'yes' },
    });
    expect(approved.body.result).toMatchObject({ kind: 'approval', decision: 'approve' });
  });
});
