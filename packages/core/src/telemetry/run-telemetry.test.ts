import { metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { linearWorkflow } from '../__fixtures__/workflows.js';
import { createInterlock, defineTool, type Interlock } from '../index.js';
import { scriptedModel } from '../testing/index.js';

/*
 * Traces and metrics of a round trip in one process (F59): the run, its nodes, the model and
 * tool calls, the person's wait and the answer, in the thread's one trace; the approval
 * metrics. The cross-process trace is apps/web/test/telemetry.e2e.test.ts.
 */

class TestReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

const spans = new InMemorySpanExporter();
const reader = new TestReader();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const meterProvider = new MeterProvider({ readers: [reader] });

beforeAll(() => {
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
});

let interlock: Interlock | undefined;
afterEach(async () => {
  await interlock?.close();
  interlock = undefined;
  spans.reset();
});

const SECRET = 'prod-password-do-not-trace';
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys a service',
  category: 'command',
  riskLevel: 'HIGH',
  parameters: z.object({ env: z.string(), token: z.string() }),
  execute: async ({ env }) => `deployed to ${env} with ${SECRET}`,
});

async function metric(name: string) {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((found) => found.descriptor.name === name);
}

const named = (name: string) => spans.getFinishedSpans().filter((span) => span.name === name);
const attributes = (span: ReadableSpan | undefined) => span?.attributes ?? {};

describe('telemetry of a round trip (F59)', () => {
  it('puts the run, its calls, the wait and the answer in the thread’s trace, with no argument values', async () => {
    const model = scriptedModel([
      { text: '', toolCalls: [{ id: 'c1', name: 'deploy', arguments: { env: 'prod', token: SECRET } }] },
      'done',
    ]);
    interlock = await createInterlock({ models: { default: model }, tools: [deploy] });
    const workflow = interlock.registerWorkflow(
      linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['deploy'] } }], { id: 'release' }),
    );
    const thread = await interlock.start(workflow, { channel: 'inbox' });
    await thread.done();
    const [request] = await interlock.pending();
    const pendingGauge = await metric('interlock.approvals.pending');
    expect(pendingGauge?.dataPoints).toContainEqual(
      expect.objectContaining({ value: 1, attributes: { 'interlock.risk': 'HIGH' } }),
    );

    const answered = await interlock.respond(request!.interactionId, true, { responder: 'web:alice' });
    if (answered.status !== 'accepted') return expect.unreachable('the answer was accepted');
    await answered.thread?.done();

    const [start] = named('interlock.start');
    const traceId = start?.spanContext().traceId;
    expect((await interlock.thread(thread.threadId))?.traceparent).toBe(
      `00-${traceId}-${start?.spanContext().spanId}-01`,
    );
    expect(named('interlock.run')).toHaveLength(2);
    expect(named('interlock.run').map((span) => attributes(span)['interlock.thread.status'])).toEqual([
      'waiting',
      'completed',
    ]);
    expect(named('interlock.model_call')).toHaveLength(2);
    expect(attributes(named('interlock.tool_call').at(-1))).toMatchObject({
      'interlock.tool.name': 'deploy',
      'interlock.risk': 'HIGH',
      'interlock.decision': 'allow',
      'interlock.rule': 'person',
      'interlock.tool.status': 'SUCCESS',
    });
    const [wait] = named('interlock.wait');
    expect(attributes(wait)).toMatchObject({
      'interlock.decision': 'approved',
      'interlock.rule': 'ask:risk:HIGH',
      'interlock.risk': 'HIGH',
      'interlock.tool.name': 'deploy',
      'interlock.interaction.id': request!.interactionId,
    });
    expect(wait?.startTime).toEqual([Math.floor(Date.parse(request!.requestedAt) / 1_000), expect.any(Number)]);
    expect(attributes(named('interlock.respond')[0])).toMatchObject({
      'interlock.respond.result': 'accepted',
      'interlock.respond.continuation': 'continued',
    });
    const all = spans.getFinishedSpans();
    expect(new Set(all.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
    expect(JSON.stringify(all.map((span) => [span.attributes, span.events]))).not.toContain(SECRET);

    const requested = await metric('interlock.approvals.requested');
    expect(requested?.dataPoints).toEqual([
      expect.objectContaining({ value: 1, attributes: expect.objectContaining({ 'interlock.risk': 'HIGH' }) }),
    ]);
    expect((await metric('interlock.approvals.answered'))?.dataPoints).toEqual([
      expect.objectContaining({ value: 1, attributes: expect.objectContaining({ 'interlock.decision': 'approved' }) }),
    ]);
    const waits = (await metric('interlock.approval.wait')) as HistogramMetricData | undefined;
    expect(waits?.dataPoints[0]?.value.count).toBe(1);
    expect((await metric('interlock.tool.calls'))?.dataPoints).toContainEqual(
      expect.objectContaining({
        value: 1,
        attributes: { 'interlock.tool.name': 'deploy', 'interlock.risk': 'HIGH', 'interlock.tool.status': 'SUCCESS' },
      }),
    );
    expect((await metric('interlock.approvals.pending'))?.dataPoints).toContainEqual(
      expect.objectContaining({ value: 0, attributes: { 'interlock.risk': 'HIGH' } }),
    );
  });

  it('joins the trace a caller names, and times a wait that nobody answered', async () => {
    const model = scriptedModel([
      { text: '', toolCalls: [{ id: 'c1', name: 'deploy', arguments: { env: 'prod', token: 't' } }] },
      'done',
    ]);
    let now = Date.parse('2026-05-01T10:00:00.000Z');
    interlock = await createInterlock({ models: { default: model }, tools: [deploy], clock: { now: () => now } });
    const workflow = interlock.registerWorkflow({
      ...linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['deploy'] } }], { id: 'release' }),
      config: { toolApproval: { approvalTimeout: '1h' } },
    });
    const caller = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const thread = await interlock.start(workflow, { channel: 'inbox', traceparent: caller });
    await thread.done();
    now += 3_600_000;
    await interlock.expireOverdue();
    await (await interlock.resume(thread.threadId)).done();
    const [wait] = named('interlock.wait');
    expect(attributes(wait)).toMatchObject({ 'interlock.decision': 'timeout' });
    expect(wait?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(named('interlock.start')[0]?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect((await metric('interlock.approvals.timed_out'))?.dataPoints).toEqual([
      expect.objectContaining({ value: 1, attributes: expect.objectContaining({ 'interlock.decision': 'timeout' }) }),
    ]);
  });

  it('marks a refused answer with its code only: the span names no one and gives no reason (F51, F59)', async () => {
    const model = scriptedModel([
      { text: '', toolCalls: [{ id: 'c1', name: 'deploy', arguments: { env: 'prod', token: 't' } }] },
      'done',
    ]);
    interlock = await createInterlock({ models: { default: model }, tools: [deploy] });
    const workflow = interlock.registerWorkflow({
      ...linearWorkflow([{ id: 'agent', type: 'LLM', config: { tools: ['deploy'] } }], { id: 'release' }),
      config: { toolApproval: { approvalTimeout: '1h', quorum: { required: 2, minRisk: 'HIGH' } } },
    });
    const thread = await interlock.start(workflow, {
      channel: 'inbox',
      session: { requestedBy: 'web:alice@example.com' },
    });
    await thread.done();
    const [request] = await interlock.pending();
    await expect(
      interlock.respond(
        request!.interactionId,
        { approved: true, userInstruction: 'ship it, ticket ZK-44' },
        {
          responder: 'web:alice@example.com',
        },
      ),
    ).rejects.toMatchObject({ code: 'APPROVAL_NOT_ALLOWED', message: expect.stringContaining('alice@example.com') });
    const [refused] = named('interlock.respond');
    expect(refused?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'APPROVAL_NOT_ALLOWED' });
    expect(attributes(refused)).toMatchObject({ 'interlock.error.code': 'APPROVAL_NOT_ALLOWED' });
    const exported = JSON.stringify(
      spans.getFinishedSpans().map((span) => [span.name, span.attributes, span.events, span.status]),
    );
    expect(exported).not.toContain('alice');
    expect(exported).not.toContain('ZK-44');
  });
});
