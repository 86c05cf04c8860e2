import {
  ROOT_CONTEXT,
  context,
  propagation,
  trace,
  type Context,
  type ContextManager,
  type SpanContext,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BullMQOTelSpan, BullMQOtel } from 'bullmq-otel';
import type { Telemetry } from 'bullmq';
import type { TracingSdk } from './tracing-sdk-api.js';
import type { TracingEnvironment } from './tracing-enabled.js';

/** What a flush or the shutdown may take: the receiver down must not hold the exit. */
const EXPORT_WAIT_MS = 5_000;

/** BullMQ's span kinds that are no trace of their own: its polls, pauses, closes, bulk adds. */
const QUIET_ROOT_KINDS = new Set([0, 3]);

/**
 * The OpenTelemetry SDK of an envdata process, loaded by `startTracing` only (dynamic import):
 * a tracer provider with the batch span processor and the OTLP/HTTP (JSON) exporter, both
 * configured by the standard variables (`OTEL_EXPORTER_OTLP_*`, `OTEL_BSP_*`,
 * `OTEL_TRACES_SAMPLER(_ARG)`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`), registered as
 * the global one with a synchronous context manager (`SynchronousContextManager`) and the W3C
 * trace-context propagator; and BullMQ's telemetry (`bullmq-otel`) over it.
 */
export function startTracingSdk(options: {
  readonly serviceName: string;
  /** The variables, for the batch settings; the SDK's parts read the process's own. */
  readonly env: TracingEnvironment;
}): TracingSdk {
  const { env } = options;
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({ 'service.name': options.serviceName, 'process.pid': process.pid }),
    )
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the role's name.
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = new OTLPTraceExporter();
  // Larger batches than the SDK's defaults (2048 queued, 512 per export), unless the variables
  // say: a busy worker ends a dozen spans per chunk, a full queue drops spans, and fewer, larger
  // exports cost less per span. The SDK's 5 s between exports stays.
  const processor = new BatchSpanProcessor(exporter, {
    ...(env.OTEL_BSP_MAX_QUEUE_SIZE === undefined && { maxQueueSize: 16_384 }),
    ...(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE === undefined && { maxExportBatchSize: 2_048 }),
    ...(env.OTEL_BSP_EXPORT_TIMEOUT === undefined && { exportTimeoutMillis: EXPORT_WAIT_MS }),
  });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  const contexts = new SynchronousContextManager();
  provider.register({ contextManager: contexts, propagator: new W3CTraceContextPropagator() });
  const tracer = provider.getTracer('envdata');

  const telemetry = new BullMQOtel({ tracerName: 'bullmq' });
  const bullmqTracer = telemetry.tracer;
  const quiet = new BullMQOTelSpan(trace.wrapSpanContext({ ...INVALID_CONTEXT }));
  // BullMQ traces its polls and housekeeping too; only those inside a trace are kept (a job's
  // `getNextJob`, `complete`, `retry`…), so a chunk's trace is the only trace its job makes.
  (telemetry as Telemetry).tracer = {
    startSpan(name, spanOptions, parent) {
      const root = trace.getSpan(parent ?? context.active()) === undefined;
      if (root && QUIET_ROOT_KINDS.has(spanOptions?.kind ?? 0)) return quiet;
      return bullmqTracer.startSpan(name, spanOptions, parent);
    },
  };

  const traceparentOf = (ctx: Context): string | undefined => {
    const carrier: Record<string, string> = {};
    propagation.inject(ctx, carrier);
    return carrier.traceparent;
  };
  const bounded = (work: Promise<void>): Promise<void> =>
    Promise.race([
      work.catch(() => undefined),
      new Promise<void>((resolve) => setTimeout(resolve, EXPORT_WAIT_MS).unref()),
    ]);
  return {
    tracer,
    telemetry,
    activeContext: () => contexts.active(),
    rootContext: ROOT_CONTEXT,
    spanOf: (ctx) => trace.getSpan(ctx),
    contextWith: (ctx, span) => trace.setSpan(ctx, span),
    runIn: (ctx, fn) => contexts.with(ctx, fn),
    traceparentOf,
    parseTraceparent: (traceparent): SpanContext | undefined =>
      trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent })),
    jobMetadataOf: (span) =>
      JSON.stringify({ traceparent: traceparentOf(trace.setSpan(ROOT_CONTEXT, span)) }),
    flush: () => bounded(provider.forceFlush()),
    // The global API let go of too, so that tracing may start again in this process (a bench
    // alternating on and off).
    shutdown: () =>
      bounded(provider.shutdown()).finally(() => {
        trace.disable();
        context.disable();
        propagation.disable();
      }),
  };
}

/**
 * The active context for the synchronous part of a `with` only. OpenTelemetry's default for
 * Node carries it across awaits with AsyncLocalStorage, which on Node 20 runs a hook for every
 * promise the process makes, traced or not: about a tenth of a worker's CPU (bench:backfill part
 * 5). envdata carries its spans' parents by hand instead (`TraceParent`); what this manager still
 * gives is the span BullMQ's `process` makes active while it calls the job's processor, and the
 * span of a log line written synchronously inside one. BullMQ's spans made after an await (its
 * `complete` of a job, say) start at the root, where the quiet tracer below drops them.
 */
class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = target as (...args: unknown[]) => unknown;
    const bound = (...args: unknown[]): unknown => this.with(ctx, () => run(...args));
    return bound as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

/** A span context no trace has: what BullMQ's dropped spans carry. */
const INVALID_CONTEXT: SpanContext = {
  traceId: '00000000000000000000000000000000',
  spanId: '0000000000000000',
  traceFlags: 0,
};
