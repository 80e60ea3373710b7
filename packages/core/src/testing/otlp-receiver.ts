import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';

/*
 * A collector for the tests (F59): a small HTTP server on 127.0.0.1 that takes OTLP/HTTP
 * JSON exports (`POST /v1/traces`, `POST /v1/metrics`, gzipped or not) and keeps what they
 * carry, flattened: each span and each metric with the `service.name` of the process that
 * sent it; and each body as it arrived, to look for what must never leave.
 */

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };
interface OtlpResource {
  attributes?: OtlpAttribute[];
}

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  /** The span's status: its code (0 unset, 1 ok, 2 error) and message, as exported. */
  status: { code: number; message: string };
  /** The names of its events. */
  events: string[];
}

export interface ReceivedMetric {
  service: string;
  name: string;
  /** The data points, their attributes flattened. */
  points: { attributes: Record<string, string | number | boolean>; value?: number; count?: number }[];
}

export interface OtlpReceiver {
  /** The base URL to give exporters (`http://127.0.0.1:<port>`). */
  endpoint: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** Every export's body as it arrived (unzipped): what left the processes, word for word. */
  bodies: string[];
  close(): Promise<void>;
}

function valueOf(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

const serviceOf = (resource: OtlpResource | undefined) => String(attributesOf(resource?.attributes)['service.name']);
const millis = (nanos: string | number) => Number(BigInt(nanos) / 1_000_000n);

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (!String(request.headers['content-type']).includes('json')) {
        response.writeHead(415).end();
        return;
      }
      bodies.push(body.toString('utf8'));
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- OTLP JSON, read field by field below
      const payload: any = JSON.parse(body.toString('utf8'));
      if (request.url === '/v1/traces') {
        for (const resourceSpans of payload.resourceSpans ?? [])
          for (const scopeSpans of resourceSpans.scopeSpans ?? [])
            for (const span of scopeSpans.spans ?? [])
              spans.push({
                service: serviceOf(resourceSpans.resource),
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId || undefined,
                name: span.name,
                startMs: millis(span.startTimeUnixNano),
                endMs: millis(span.endTimeUnixNano),
                attributes: attributesOf(span.attributes),
                status: { code: Number(span.status?.code ?? 0), message: String(span.status?.message ?? '') },
                // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OTLP span event
                events: (span.events ?? []).map((event: any) => String(event.name)),
              });
      } else if (request.url === '/v1/metrics') {
        for (const resourceMetrics of payload.resourceMetrics ?? [])
          for (const scopeMetrics of resourceMetrics.scopeMetrics ?? [])
            for (const metric of scopeMetrics.metrics ?? []) {
              const data = metric.sum ?? metric.gauge ?? metric.histogram ?? { dataPoints: [] };
              metrics.push({
                service: serviceOf(resourceMetrics.resource),
                name: metric.name,
                // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OTLP data point
                points: data.dataPoints.map((point: any) => ({
                  attributes: attributesOf(point.attributes),
                  ...(point.asInt !== undefined || point.asDouble !== undefined
                    ? { value: Number(point.asInt ?? point.asDouble) }
                    : {}),
                  ...(point.count !== undefined ? { count: Number(point.count) } : {}),
                })),
              });
            }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the receiver has no port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    spans,
    metrics,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
