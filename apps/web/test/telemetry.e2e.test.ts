import { describe, expect, it } from 'vitest';
import type { ReceivedSpan } from '@interlock/core/testing';
import { api, until } from './deployment/deployment-harness.js';
import { telemetryRoundTrip } from './deployment/telemetry-round-trip.js';

/*
 * One trace across the processes of a round trip (F59), through the OTLP/HTTP exporters into
 * a collector on 127.0.0.1: a service asks (and exits), the built interlock-web answers (two
 * approvers, F51), the built `interlock worker` continues and runs the call. Each process
 * exports as its own service; the spans of all three are in the thread's one trace, with the
 * person's wait in it, and the metrics say what was requested and answered.
 */

const TOKENS = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdefgh' };

const WORKFLOW = {
  id: 'release',
  name: 'Release',
  version: '1',
  config: { toolApproval: { approvalTimeout: '1h', quorum: { required: 2, minRisk: 'MEDIUM' } } },
  nodes: [
    { id: 'start', type: 'START' },
    { id: 'publish', type: 'TOOL', config: { tool: 'write_file', arguments: { path: 'RELEASE.md', content: 'v42' } } },
    { id: 'end', type: 'END' },
  ],
  edges: [
    { from: 'start', to: 'publish' },
    { from: 'publish', to: 'end' },
  ],
};

const roundTrip = telemetryRoundTrip('telemetry');

describe('telemetry across processes (F59)', () => {
  it('puts the asking service, the web server that answers and the worker that goes on in one trace, with the wait', async () => {
    const { threadId, status, baseUrl, stop } = await roundTrip.run({ workflow: WORKFLOW, tokens: TOKENS });
    expect(status).toBe('waiting');
    const pending = await until(
      'the approval in the inbox',
      () => api(baseUrl, TOKENS.alice, '/api/interactions'),
      (response) => response.body.interactions.length === 1,
    );
    const interactionId: string = pending.body.interactions[0].interactionId;
    const first = await api(baseUrl, TOKENS.alice, `/api/interactions/${interactionId}/respond`, { action: 'approve' });
    expect(first.body).toMatchObject({ result: 'accepted', approvals: { given: 1, required: 2 } });
    const second = await api(baseUrl, TOKENS.bob, `/api/interactions/${interactionId}/respond`, { action: 'approve' });
    expect(second.body).toMatchObject({ result: 'accepted' });
    await until(
      'the worker to finish the thread',
      () => api(baseUrl, TOKENS.alice, `/api/threads/${threadId}`),
      (response) => response.body.thread.status === 'completed',
    );

    // Stopping flushes what each process still holds.
    await stop();
    const { receiver } = roundTrip;

    const started = receiver.spans.find(
      (span) => span.name === 'interlock.start' && span.attributes['interlock.thread.id'] === threadId,
    );
    expect(started?.service).toBe('release-service');
    const trace = receiver.spans.filter((span) => span.traceId === started?.traceId);
    const by = (name: string): ReceivedSpan[] => trace.filter((span) => span.name === name);
    expect(new Set(trace.map((span) => span.service))).toEqual(
      new Set(['release-service', 'interlock-web', 'interlock-worker']),
    );
    expect(
      by('interlock.run')
        .map((span) => span.service)
        .sort(),
    ).toEqual(['interlock-worker', 'release-service']);
    expect(
      by('interlock.respond').map((span) => [span.service, span.attributes['interlock.respond.continuation']]),
    ).toEqual([
      ['interlock-web', 'awaiting-approvals'],
      ['interlock-web', 'scheduled'],
    ]);
    const [wait] = by('interlock.wait');
    expect(wait).toMatchObject({
      service: 'interlock-worker',
      attributes: {
        'interlock.decision': 'approved',
        'interlock.tool.name': 'write_file',
        'interlock.risk': 'MEDIUM',
        'interlock.approvals.required': 2,
        'interlock.approvals.given': 2,
      },
    });
    // The wait spans the time from the question (asked by the service) to the last approval (in the web server).
    const asking = by('interlock.run').find((span) => span.service === 'release-service');
    expect(wait!.startMs).toBeLessThanOrEqual(asking!.endMs);
    expect(wait!.endMs).toBeGreaterThanOrEqual(Math.max(...by('interlock.respond').map((span) => span.startMs)) - 1);
    expect(by('interlock.tool_call').find((span) => span.service === 'interlock-worker')?.attributes).toMatchObject({
      'interlock.tool.name': 'write_file',
      'interlock.tool.status': 'SUCCESS',
      'interlock.rule': 'person',
    });
    expect(JSON.stringify(trace)).not.toContain('v42');

    const metric = (service: string, name: string) =>
      receiver.metrics.filter((found) => found.service === service && found.name === name).at(-1);
    expect(metric('release-service', 'interlock.approvals.requested')?.points).toContainEqual(
      expect.objectContaining({ value: 1, attributes: expect.objectContaining({ 'interlock.risk': 'MEDIUM' }) }),
    );
    expect(metric('interlock-worker', 'interlock.approvals.answered')?.points).toContainEqual(
      expect.objectContaining({ value: 1, attributes: expect.objectContaining({ 'interlock.decision': 'approved' }) }),
    );
    expect(metric('interlock-worker', 'interlock.approval.wait')?.points[0]?.count).toBe(1);
    expect(metric('interlock-worker', 'interlock.tool.calls')?.points).toContainEqual(
      expect.objectContaining({
        value: 1,
        attributes: expect.objectContaining({ 'interlock.tool.status': 'SUCCESS' }),
      }),
    );
    expect(metric('interlock-web', 'interlock.approvals.pending')?.points).toContainEqual(
      expect.objectContaining({ attributes: { 'interlock.risk': 'MEDIUM' } }),
    );
  });
});
