import { describe, expect, it } from 'vitest';
import { api, until } from './deployment/deployment-harness.js';
import { telemetryRoundTrip } from './deployment/telemetry-round-trip.js';

/*
 * What telemetry carries (F59; docs/security.md): codes, rule ids, decisions and levels —
 * never a person's name, a reason or an instruction, on any path. A service asks, the built
 * interlock-web takes refused, accepted and escalated answers in its inbox, the built
 * `interlock worker` goes on; every export reaches a collector on 127.0.0.1, and the bodies
 * as they arrived are searched for the names, the reason and the instructions.
 */

/** The people, as the approvers file names them: none of these may leave in telemetry. */
const TOKENS = {
  'rita.requester': 'rita-token-0123456789abcdef',
  'alice.approver': 'alice-token-0123456789abcdef',
  'bob.approver': 'bob-token-0123456789abcdefgh',
  'carol.escalation': 'carol-token-0123456789abcdef',
};
const REASON = 'not before the review of QX-17';
const INSTRUCTIONS = ['ship it quietly, ticket ZK-44', 'tell the on-call team, ticket WV-93'];

/** Two calls that need two approvals each; after a second, web:carol.escalation may approve too. */
const WORKFLOW = {
  id: 'release',
  name: 'Release',
  version: '1',
  config: {
    toolApproval: {
      approvalTimeout: '1h',
      quorum: { required: 2, minRisk: 'MEDIUM', escalation: { after: '1s', approvers: ['web:carol.escalation'] } },
    },
  },
  nodes: [
    { id: 'start', type: 'START' },
    { id: 'publish', type: 'TOOL', config: { tool: 'write_file', arguments: { path: 'RELEASE.md', content: 'v42' } } },
    { id: 'announce', type: 'TOOL', config: { tool: 'write_file', arguments: { path: 'NEWS.md', content: 'v42' } } },
    { id: 'end', type: 'END' },
  ],
  edges: [
    { from: 'start', to: 'publish' },
    { from: 'publish', to: 'announce' },
    { from: 'announce', to: 'end' },
  ],
};

const roundTrip = telemetryRoundTrip('telemetry-privacy');

interface Waiting {
  interactionId: string;
  toolApproval?: { toolParameters?: { path?: string }; quorum?: { escalation?: { escalated?: boolean } } };
}

describe('telemetry never carries a person (F59)', () => {
  it('exports no responder name, reason or instruction for refused, accepted and escalated answers (F51, F59)', async () => {
    const { threadId, baseUrl, stop } = await roundTrip.run({
      workflow: WORKFLOW,
      tokens: TOKENS,
      asker: { requestedBy: 'web:rita.requester' },
    });
    const as = (name: keyof typeof TOKENS) => (path: string, body?: unknown) => api(baseUrl, TOKENS[name], path, body);
    const waitingFor = (path: string, done: (call: Waiting) => boolean = () => true) =>
      until(
        `the call writing ${path} in the inbox`,
        async () =>
          ((await as('alice.approver')('/api/interactions')).body.interactions as Waiting[]).find(
            (call) => call.toolApproval?.toolParameters?.path === path,
          ),
        (call) => call !== undefined && done(call),
      ) as Promise<Waiting>;
    const respond = (name: keyof typeof TOKENS, interactionId: string, body: unknown) =>
      as(name)(`/api/interactions/${interactionId}/respond`, body);

    // The first call: refused (its requester), then escalated, then approved by two — one of them escalated.
    const publish = await waitingFor('RELEASE.md', (call) => call.toolApproval?.quorum?.escalation?.escalated === true);
    const refused = await respond('rita.requester', publish.interactionId, { action: 'approve' });
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.body)).toContain('rita.requester');
    expect(
      (await respond('alice.approver', publish.interactionId, { action: 'approve', instruction: INSTRUCTIONS[0] }))
        .body,
    ).toMatchObject({ result: 'accepted', approvals: { given: 1, required: 2 } });
    expect(
      (await respond('carol.escalation', publish.interactionId, { action: 'approve', instruction: INSTRUCTIONS[1] }))
        .body,
    ).toMatchObject({ result: 'accepted' });

    // The second call: rejected with a reason; an approval after it changes nothing.
    const announce = await waitingFor('NEWS.md');
    expect(
      (await respond('alice.approver', announce.interactionId, { action: 'reject', reason: REASON })).body,
    ).toMatchObject({ result: 'accepted' });
    expect((await respond('bob.approver', announce.interactionId, { action: 'approve' })).status).toBe(409);
    await until(
      'the worker to end the thread',
      () => as('alice.approver')(`/api/threads/${threadId}`),
      (response) => ['completed', 'failed'].includes(response.body.thread.status),
    );

    // Stopping flushes what each process still holds.
    await stop();
    const { receiver } = roundTrip;

    // What was exported tells the story in codes and decisions…
    const spans = receiver.spans.filter((span) => span.attributes['interlock.thread.id'] === threadId);
    const responds = spans.filter((span) => span.name === 'interlock.respond');
    expect(responds.find((span) => span.status.code === 2)).toMatchObject({
      service: 'interlock-web',
      status: { message: 'APPROVAL_NOT_ALLOWED' },
      attributes: { 'interlock.error.code': 'APPROVAL_NOT_ALLOWED' },
    });
    // Alice's, Carol's (escalated) and Alice's rejection; Bob's came after it, and the server refused it before asking.
    expect(responds.map((span) => span.attributes['interlock.respond.result']).filter(Boolean)).toEqual([
      'accepted',
      'accepted',
      'accepted',
    ]);
    expect(
      spans
        .filter((span) => span.name === 'interlock.wait')
        .map((span) => span.attributes['interlock.decision'])
        .sort(),
    ).toEqual(['approved', 'rejected']);
    const metric = (name: string) => receiver.metrics.filter((found) => found.name === name).at(-1);
    expect(metric('interlock.approvals.escalated')?.points[0]?.value).toBe(1);
    // …and none of it names a person, gives a reason or repeats an instruction.
    const exported = receiver.bodies.join('\n');
    expect(exported).toContain(threadId);
    for (const secret of [...Object.keys(TOKENS), 'rita', 'alice', 'carol', REASON, 'QX-17', ...INSTRUCTIONS, 'ZK-44'])
      expect(exported, `the exports name "${secret}"`).not.toContain(secret);
  });
});
