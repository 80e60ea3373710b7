import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASE_AGENT_WORKFLOW } from '../src/demo/web-demo.js';
import { WEB_CHANNEL } from '../src/server/create-web-server.js';
import { respond } from './web-api-harness.js';
import { eventually, request, startHarness, type WebHarness } from './web-harness.js';

/*
 * Two approvals for a HIGH-risk call through the inbox's HTTP API (F51): the first approval
 * comes back as "1 of 2" and the call waits, the requester's approval is refused and
 * audited, the second runs the call. (Two approvers in a real browser: the inbox's e2e tests.)
 */

let harness: WebHarness;
beforeAll(async () => {
  harness = await startHarness({
    approvers: ['alice', 'bob', 'rita'],
    workflowApprovers: { [RELEASE_AGENT_WORKFLOW]: ['alice', 'bob', 'rita'] },
    approval: { quorum: { required: 2, minRisk: 'HIGH' } },
  });
});
afterAll(() => harness.close());

const as = (name: string) => ({ token: harness.tokens[name]! });

interface Card {
  interactionId: string;
  threadId: string;
  toolApproval: { toolName: string; riskLevel: string; quorum?: unknown };
}

/** A release thread rita asks for (her approval never counts), and its two cards in alice's inbox. */
async function releaseAskedByRita(): Promise<{ threadId: string; write: Card; deploy: Card }> {
  const thread = await harness.interlock.start(RELEASE_AGENT_WORKFLOW, {
    channel: WEB_CHANNEL,
    session: { requestedBy: 'web:rita' },
  });
  await thread.done();
  const inbox = await request(harness, '/api/interactions', as('alice'));
  const cards = (inbox.body.interactions as Card[]).filter((card) => card.threadId === thread.threadId);
  const card = (toolName: string) => {
    const found = cards.find((each) => each.toolApproval.toolName === toolName);
    if (found === undefined) throw new Error(`no ${toolName} card in alice's inbox`);
    return found;
  };
  return { threadId: thread.threadId, write: card('write_file'), deploy: card('bash') };
}

describe('two approvals for a HIGH-risk call in the inbox (F51)', () => {
  it('answers the first approval with "1 of 2", refuses the requester, and runs the call at the second', async () => {
    const { threadId, write, deploy } = await releaseAskedByRita();
    expect(write.toolApproval.quorum).toBeUndefined();
    expect(deploy.toolApproval).toMatchObject({ riskLevel: 'HIGH', quorum: { required: 2, given: 0, approvedBy: [] } });

    // The write_file call is MEDIUM: one approval runs it as before.
    expect(
      (await request(harness, respond(write.interactionId), { ...as('alice'), body: { action: 'approve' } })).body,
    ).toMatchObject({
      result: 'accepted',
      continued: true,
    });
    const first = await request(harness, respond(deploy.interactionId), {
      ...as('alice'),
      body: { action: 'approve' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      result: 'accepted',
      interactionId: deploy.interactionId,
      threadId,
      continuation: 'awaiting-approvals',
      continued: false,
      approvals: { given: 1, required: 2 },
    });
    expect(first.body.message).toContain('1 of 2');
    const one = await request(harness, `/api/interactions/${deploy.interactionId}`, as('bob'));
    expect(one.body).toMatchObject({
      status: 'pending',
      request: { toolApproval: { quorum: { required: 2, given: 1, approvedBy: ['web:alice'] } } },
    });

    // The requester's inbox says so before they try (issue 37): only their rejection would count.
    const ritasInbox = await request(harness, '/api/interactions', as('rita'));
    const ritasCard = ritasInbox.body.interactions.find(
      (card: { interactionId: string }) => card.interactionId === deploy.interactionId,
    );
    expect(ritasCard).toMatchObject({
      mayAnswer: true,
      mayApprove: false,
      why: expect.stringContaining('does not count'),
    });
    expect(deploy).toMatchObject({ mayAnswer: true, mayApprove: true });

    const byRequester = await request(harness, respond(deploy.interactionId), {
      ...as('rita'),
      body: { action: 'approve' },
    });
    expect(byRequester.status).toBe(403);
    expect(byRequester.body.code).toBe('APPROVAL_NOT_ALLOWED');
    expect(
      (await harness.interlock.audit({ threadId })).map((entry) => [entry.decidedBy, entry.rule, entry.responder]),
    ).toContainEqual(['attempt', 'attempt:refused', 'web:rita']);
    // alice again counts once.
    expect(
      (await request(harness, respond(deploy.interactionId), { ...as('alice'), body: { action: 'approve' } })).body,
    ).toMatchObject({
      continuation: 'awaiting-approvals',
      repeated: true,
      approvals: { given: 1, required: 2 },
    });

    const second = await request(harness, respond(deploy.interactionId), { ...as('bob'), body: { action: 'approve' } });
    expect(second.body).toMatchObject({ result: 'accepted', continuation: 'continued', continued: true });
    expect(second.body.approvals).toBeUndefined();
    const timeline = await eventually(async () => {
      const response = await request(harness, `/api/threads/${threadId}`, as('alice'));
      return response.body.thread.status === 'completed' ? response.body : undefined;
    });
    const ran = timeline.entries.filter((entry: { kind: string; title: string }) => entry.kind === 'tool');
    expect(ran.map((entry: { title: string }) => entry.title)).toContain('bash: SUCCESS');
    const decisions = timeline.entries.filter(
      (entry: { kind: string; title: string }) => entry.kind === 'decision' && entry.title.includes('bash'),
    );
    // The partial approval, the refused attempt and the last approval, each audited as it came (the rm -rf call was denied by a rule).
    expect(decisions.map((entry: { actor?: string }) => entry.actor)).toEqual([
      'shell:banned:rm-root',
      'web:alice',
      'web:rita',
      'web:bob',
    ]);
  });

  it('tells every open page when a call has one approval of two, as it tells them of an answer', async () => {
    const { deploy } = await releaseAskedByRita();
    await harness.app.liveUpdates.tick();
    const changes: string[] = [];
    const unsubscribe = harness.app.liveUpdates.subscribe((change) => changes.push(change.reason));
    try {
      // An approval that does not end the question: nothing leaves the inbox and no thread moves,
      // yet bob's inbox must come to say "1 of 2" without a reload.
      const first = await request(harness, respond(deploy.interactionId), {
        ...as('alice'),
        body: { action: 'approve' },
      });
      expect(first.body).toMatchObject({ continuation: 'awaiting-approvals', approvals: { given: 1, required: 2 } });
      await harness.app.liveUpdates.tick();
      expect(changes).toContain('pending-changed');
      // Looked at again with nothing new: no change to tell.
      changes.length = 0;
      await harness.app.liveUpdates.tick();
      expect(changes).toEqual([]);
    } finally {
      unsubscribe();
    }
  });
});
