import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** An attribute of OTLP/JSON: `{ key, value: { stringValue | intValue | boolValue | … } }`. */
interface OtlpAttribute {
  readonly key: string;
  readonly value: Record<string, unknown>;
}

/** One span as received, with its resource's service name and process id. */
export interface ReceivedSpan {
  readonly service: string;
  readonly pid: number | undefined;
  readonly traceId: string;
  readonly spanId: string;
  /** `undefined` for a root span. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP's `SpanKind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** 2 is ERROR. */
  readonly statusCode: number;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`: what OTEL_EXPORTER_OTLP_ENDPOINT takes (the SDK adds /v1/traces). */
  readonly url: string;
  /** Every span received so far, decoded. */
  spans(): ReceivedSpan[];
  /** Every request body received, as text (to grep for secrets). */
  payloads(): string[];
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector or Jaeger would be: decodes every
 * `ExportTraceServiceRequest` posted to /v1/traces in the JSON encoding (ids as hex strings,
 * 64-bit integers as strings) and answers 200 `{}`. Anything else is answered 404 and recorded.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const payloads: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      let body = Buffer.concat(parts);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const text = body.toString('utf8');
      payloads.push(text);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      spans.push(...decode(JSON.parse(text)));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    payloads: () => [...payloads],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        attributes?: OtlpAttribute[];
        links?: { traceId: string; spanId: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function decode(request: ExportRequest): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        out.push({
          service: String(resource['service.name']),
          pid: typeof resource['process.pid'] === 'number' ? resource['process.pid'] : undefined,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ? span.parentSpanId : undefined,
          name: span.name,
          kind: span.kind,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          statusCode: span.status?.code ?? 0,
        });
      }
    }
  }
  return out;
}

function attributesOf(attributes: readonly OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attributes ?? []) out[key] = valueOf(value);
  return out;
}

function valueOf(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if ('arrayValue' in value) {
    const values = (value.arrayValue as { values?: Record<string, unknown>[] }).values ?? [];
    return values.map(valueOf);
  }
  return undefined;
}
