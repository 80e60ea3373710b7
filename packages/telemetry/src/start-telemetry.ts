import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** Where and as whom a process exports its traces and metrics. */
export interface TelemetryOptions {
  /** The collector's OTLP/HTTP base URL (`http://127.0.0.1:4318`): traces go to `/v1/traces`, metrics to `/v1/metrics`. */
  endpoint: string;
  /** `service.name` of everything this process exports. */
  serviceName: string;
  /** Headers sent with every export (an API key). */
  headers?: Record<string, string>;
  /** How often metrics are exported (ms). Default 60 000. */
  metricsIntervalMs?: number;
}

/** The OpenTelemetry SDK of this process, once started. */
export interface Telemetry {
  /** Exports what is buffered now: the spans ended and the metrics as they stand. */
  flush(): Promise<void>;
  /** Flushes, then stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Installs the OpenTelemetry SDK for this process (F59): a tracer provider (with the
 * asynchronous context of Node and W3C trace context) and a meter provider, both exporting
 * OTLP/HTTP JSON to `endpoint`. Interlock's core uses the API alone: start this before
 * `createInterlock` or `createWorker`, so its metrics are recorded too.
 *
 * @example
 * const telemetry = startTelemetry({ endpoint: 'http://127.0.0.1:4318', serviceName: 'refund-service' });
 * const interlock = await createInterlock({ … });
 * process.once('SIGTERM', () => void telemetry.shutdown());
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const base = options.endpoint.replace(/\/+$/, '');
  const headers = options.headers ?? {};
  const resource = resourceFromAttributes({ 'service.name': options.serviceName });
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${base}/v1/traces`, headers }) }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics`, headers }),
        exportIntervalMillis: options.metricsIntervalMs ?? 60_000,
      }),
    ],
  });
  metrics.setGlobalMeterProvider(meterProvider);
  let stopped: Promise<void> | undefined;
  return {
    async flush() {
      await Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
    },
    shutdown() {
      stopped ??= Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]).then(() => undefined);
      return stopped;
    },
  };
}
