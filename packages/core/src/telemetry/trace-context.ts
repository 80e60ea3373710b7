import {
  ROOT_CONTEXT,
  isSpanContextValid,
  trace,
  type Context,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';

/*
 * The trace context a thread carries in the store (F59): the W3C `traceparent` of the span
 * that started it, so a run in any process — the one that asked, a web server that answers, a
 * worker that goes on — joins the same trace. Written and read here, not through the
 * application's propagator, so the stored form does not depend on its choice.
 */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-<trace id>-<span id>-<flags>` of a span context, or undefined for an invalid one. */
export function traceparentOf(spanContext: SpanContext): string | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The context whose parent is the span a stored `traceparent` names (the root context without one). */
export function contextOf(traceparent: string | undefined): Context {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (match === null) return ROOT_CONTEXT;
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const spanContext: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

/**
 * Whether an SDK records this tracer's spans. Without one (the API alone is inert) nothing
 * else is read or computed for tracing. The span asked is never ended, so never exported.
 */
export function isTracing(tracer: Tracer): boolean {
  return tracer.startSpan('interlock.probe').isRecording();
}
