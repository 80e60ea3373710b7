import { SpanStatusCode, context, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { InterlockEvent, ToolApprovalResponse, UserInteractionRequest } from '@interlock/sdk-types';
import type { Run } from '../engine/run.js';
import { toInterlockError } from '../errors/interlock-error.js';
import type { ICheckpointStore, InteractionRecord, ThreadRecord } from '../persistence/checkpoint-store.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { ApprovalMetrics } from './approval-metrics.js';
import { contextOf, isTracing, traceparentOf } from './trace-context.js';

/** What the telemetry of one run of this process keeps: its span and the spans open under it. */
interface TracedRun {
  run: Run;
  span: Span;
  context: Context;
  nodes: Map<string, Span>;
  models: Map<string, Span>;
  tools: Map<string, Span>;
}

/**
 * Traces and metrics of runs (F59), with `@opentelemetry/api` only: inert until the
 * application installs an SDK. Spans hang off the run and its events, the one stream every
 * transition publishes through (the coordinator's `emit`): a span per run, node, model call
 * and tool call, and one per person's wait, dated from the question to its answer; every span
 * of a thread, in any process, joins the trace whose context the thread carries in the store
 * (`ThreadRecord.traceparent`). Attributes are ids, tool and workflow names, levels, rules,
 * decisions and error codes: never argument values, results, a person's name, a reason or an
 * instruction (a failed span's status message is its error's code, not its message).
 */
export class RunTelemetry {
  private readonly tracer = trace.getTracer('@interlock/core');
  private readonly metrics: ApprovalMetrics;
  private readonly runs = new Map<string, TracedRun>();

  constructor(
    private readonly store: ICheckpointStore,
    private readonly tools: ToolRegistry,
  ) {
    this.metrics = new ApprovalMetrics(store);
  }

  /** A run of `run.thread` starts in this process; `end` closes its span (and any left open under it). */
  runStarted(run: Run): { end(thread: ThreadRecord | undefined, error?: unknown): void } {
    const { thread } = run;
    const span = this.tracer.startSpan(
      'interlock.run',
      { attributes: { ...threadAttributes(thread), 'interlock.run.from': thread.status } },
      contextOf(thread.traceparent),
    );
    const traced: TracedRun = {
      run,
      span,
      context: trace.setSpan(contextOf(thread.traceparent), span),
      nodes: new Map(),
      models: new Map(),
      tools: new Map(),
    };
    this.runs.set(thread.threadId, traced);
    return {
      end: (final, error) => {
        if (this.runs.get(thread.threadId) === traced) this.runs.delete(thread.threadId);
        for (const open of [...traced.models.values(), ...traced.tools.values(), ...traced.nodes.values()]) open.end();
        if (final !== undefined) span.setAttribute('interlock.thread.status', final.status);
        if (error !== undefined) failed(span, error);
        span.end();
      },
    };
  }

  /** Every event a run publishes, with the thread as it is then. */
  observe(thread: ThreadRecord, event: InterlockEvent): void {
    const traced = this.runs.get(thread.threadId);
    switch (event.type) {
      case 'NODE_STARTED':
        if (traced)
          traced.nodes.set(
            event.nodeId,
            this.child(traced, traced.context, 'interlock.node', {
              'interlock.node.id': event.nodeId,
              'interlock.node.type': event.nodeType,
            }),
          );
        return;
      case 'NODE_COMPLETED':
      case 'NODE_FAILED': {
        const span = traced?.nodes.get(event.nodeId);
        if (traced === undefined || span === undefined) return;
        traced.nodes.delete(event.nodeId);
        if (event.type === 'NODE_FAILED') failed(span, event.error);
        span.end();
        return;
      }
      case 'LLM_CALL_STARTED':
        if (traced)
          traced.models.set(
            event.nodeId,
            this.child(traced, this.nodeContext(traced, event.nodeId), 'interlock.model_call', {
              'interlock.model': event.model,
              'interlock.model.round': event.round,
            }),
          );
        return;
      case 'LLM_CALL_COMPLETED':
      case 'LLM_CALL_FAILED': {
        const span = traced?.models.get(event.nodeId);
        if (traced === undefined || span === undefined) return;
        traced.models.delete(event.nodeId);
        if (event.type === 'LLM_CALL_FAILED') failed(span, event.error);
        else span.setAttribute('interlock.model.tool_calls', event.toolCallCount);
        span.end();
        return;
      }
      case 'TOOL_CALL_REQUESTED':
      case 'TOOL_CALL_DECIDED':
      case 'TOOL_CALL_STARTED':
      case 'TOOL_CALL_OUTCOME_UNKNOWN': {
        if (traced === undefined) return;
        const span = this.toolSpan(traced, event);
        if (event.type === 'TOOL_CALL_DECIDED')
          span.setAttributes({ 'interlock.decision': event.decision, 'interlock.rule': event.rule });
        else if (event.type !== 'TOOL_CALL_REQUESTED')
          span.addEvent(event.type === 'TOOL_CALL_STARTED' ? 'started' : 'outcome unknown');
        return;
      }
      case 'TOOL_CALL_COMPLETED':
      case 'TOOL_CALL_FAILED': {
        const attributes = { ...this.toolAttributes(event.toolName), 'interlock.tool.status': event.status };
        this.metrics.toolCallEnded(attributes);
        if (traced === undefined) return;
        const span = this.toolSpan(traced, event);
        traced.tools.delete(event.toolCallId);
        span.setAttributes(attributes);
        if (event.status !== 'SUCCESS') span.setStatus({ code: SpanStatusCode.ERROR, message: event.status });
        span.end();
        return;
      }
      case 'USER_INTERACTION_REQUESTED':
        if (event.request.toolApproval !== undefined) this.metrics.approvalRequested(requestAttributes(event.request));
        return;
      case 'USER_INTERACTION_RESPONDED':
      case 'USER_INTERACTION_FAILED':
        this.waitEnded(thread, traced, event);
        return;
      case 'USER_INTERACTION_ESCALATED':
        this.metrics.approvalEscalated({ 'interlock.interaction.operation': event.operationType });
        return;
      default:
        return;
    }
  }

  /**
   * `interlock.start`: the span of a `start()` call, child of the caller's active span (or of
   * `traceparent`); its context is what the new thread carries (`fn` gets it).
   */
  async traceStart<T extends { threadId: string }>(
    workflowId: string,
    traceparent: string | undefined,
    fn: (traceparent: string | undefined) => Promise<T>,
  ): Promise<T> {
    const parent = traceparent === undefined ? context.active() : contextOf(traceparent);
    const span = this.tracer.startSpan(
      'interlock.start',
      { attributes: { 'interlock.workflow.id': workflowId } },
      parent,
    );
    try {
      const started = await fn(traceparentOf(span.spanContext()) ?? traceparent);
      span.setAttribute('interlock.thread.id', started.threadId);
      return started;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /**
   * `interlock.respond`: the span of a `respond()` call, in the trace of the interaction's
   * thread (read from the store only while an SDK records), with the decision and what came of it.
   */
  async traceRespond<T extends { status: string; continuation?: { status: string } }>(
    interactionId: string,
    fn: () => Promise<T>,
  ): Promise<T> {
    if (!isTracing(this.tracer)) return fn();
    const interaction = await this.store.getInteraction(interactionId).catch(() => undefined);
    const thread = interaction && (await this.store.getThread(interaction.threadId).catch(() => undefined));
    const span = this.tracer.startSpan(
      'interlock.respond',
      {
        attributes: {
          'interlock.interaction.id': interactionId,
          ...(interaction === undefined ? {} : requestAttributes(interaction.request)),
          ...(thread === undefined ? {} : threadAttributes(thread)),
        },
      },
      thread === undefined ? context.active() : contextOf(thread.traceparent),
    );
    try {
      const result = await fn();
      span.setAttributes({
        'interlock.respond.result': result.status,
        ...(result.continuation === undefined ? {} : { 'interlock.respond.continuation': result.continuation.status }),
        ...quorumAttributes(result.continuation),
      });
      return result;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  close(): void {
    this.metrics.close();
  }

  private child(traced: TracedRun, parent: Context, name: string, attributes: Attributes): Span {
    return this.tracer.startSpan(
      name,
      { attributes: { 'interlock.thread.id': traced.run.thread.threadId, ...attributes } },
      parent,
    );
  }

  private nodeContext(traced: TracedRun, nodeId: string): Context {
    const node = traced.nodes.get(nodeId);
    return node === undefined ? traced.context : trace.setSpan(traced.context, node);
  }

  private toolSpan(traced: TracedRun, event: { nodeId: string; toolCallId: string; toolName: string }): Span {
    const known = traced.tools.get(event.toolCallId);
    if (known !== undefined) return known;
    const span = this.child(traced, this.nodeContext(traced, event.nodeId), 'interlock.tool_call', {
      'interlock.tool_call.id': event.toolCallId,
      ...this.toolAttributes(event.toolName),
    });
    traced.tools.set(event.toolCallId, span);
    return span;
  }

  private toolAttributes(toolName: string): Attributes {
    const risk = this.tools.find(toolName)?.riskLevel;
    return { 'interlock.tool.name': toolName, ...(risk === undefined ? {} : { 'interlock.risk': risk }) };
  }

  /**
   * A person's wait ended (answered, timed out, cancelled…), as the run that applies it learns:
   * `interlock.wait`, dated from the question to the answer, in the thread's trace.
   */
  private waitEnded(
    thread: ThreadRecord,
    traced: TracedRun | undefined,
    event: Extract<InterlockEvent, { type: 'USER_INTERACTION_RESPONDED' | 'USER_INTERACTION_FAILED' }>,
  ): void {
    const interaction: InteractionRecord | undefined = traced?.run.interaction(event.interactionId);
    const request = interaction?.request;
    const decision =
      event.type === 'USER_INTERACTION_FAILED' ? event.reason : decisionOf(event.input, event.operationType);
    const end = Date.parse(interaction?.response?.respondedAt ?? event.timestamp);
    const start = request === undefined ? undefined : Date.parse(request.requestedAt);
    const attributes: Attributes & { 'interlock.decision': string } = {
      ...(request === undefined ? {} : requestAttributes(request)),
      'interlock.interaction.operation': event.operationType,
      'interlock.decision': decision,
      ...(interaction?.quorum === undefined
        ? {}
        : { 'interlock.approvals.given': interaction.quorum.approvals.length }),
    };
    if (event.operationType === 'TOOL_APPROVAL')
      this.metrics.approvalSettled(attributes, start === undefined ? undefined : (end - start) / 1_000);
    const span = this.tracer.startSpan(
      'interlock.wait',
      {
        startTime: start ?? end,
        attributes: { ...threadAttributes(thread), 'interlock.interaction.id': event.interactionId, ...attributes },
      },
      contextOf(thread.traceparent),
    );
    if (event.type === 'USER_INTERACTION_FAILED') span.setStatus({ code: SpanStatusCode.ERROR, message: event.reason });
    span.end(end);
  }
}

function threadAttributes(thread: ThreadRecord): Attributes {
  return { 'interlock.thread.id': thread.threadId, 'interlock.workflow.id': thread.workflowId };
}

/** What a request says of itself: the tool, its risk, the rule that asked, how many approvals it needs. */
function requestAttributes(request: UserInteractionRequest): Attributes {
  const details = request.toolApproval;
  return {
    'interlock.interaction.operation': request.operationType,
    ...(details === undefined
      ? {}
      : {
          'interlock.tool.name': details.toolName,
          'interlock.risk': details.riskLevel,
          'interlock.rule': details.rule,
          'interlock.approval.stage': details.stage,
          ...(details.quorum === undefined ? {} : { 'interlock.approvals.required': details.quorum.required }),
        }),
  };
}

function quorumAttributes(continuation: { status: string } | undefined): Attributes {
  if (continuation === undefined || !('given' in continuation) || !('required' in continuation)) return {};
  const { given, required } = continuation as { given: number; required: number };
  return { 'interlock.approvals.given': given, 'interlock.approvals.required': required };
}

/** approved, edited, rejected (or done, retry, fail for a recovery), answered for a question. */
function decisionOf(input: unknown, operationType: string): string {
  if (operationType !== 'TOOL_APPROVAL') return 'answered';
  const answer = input as Partial<ToolApprovalResponse> | undefined;
  if (answer?.resolution !== undefined) return answer.resolution;
  if (answer?.approved !== true) return 'rejected';
  return answer.editedParameters === undefined ? 'approved' : 'edited';
}

/**
 * Marks a span failed with the error's code (a thread error `{ code, message }`, or anything
 * thrown): as an attribute and as the status message. Never the error's message: it may name
 * a person ("web:alice asked for this thread…"), quote a reason or an instruction, or hold a
 * tool's output, and telemetry carries codes and rule ids only (F59; docs/security.md).
 */
function failed(span: Span, error: unknown): void {
  const { code } = isThreadError(error) ? error : toInterlockError(error);
  span.setAttribute('interlock.error.code', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

function isThreadError(value: unknown): value is { code: string; message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}
