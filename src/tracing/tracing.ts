import type { Span, SpanContext } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import type { TracingSdk } from './tracing-sdk-api.js';
import { tracingEnabled, type TracingEnvironment } from './tracing-enabled.js';

/** The long-running roles of an envdata process: the default `service.name` is `envdata-<role>`. */
export type ProcessRole = 'worker' | 'backfill' | 'sync' | 'serve' | 'rebuild';

/** Attribute values a span takes; `undefined` ones are left out. */
export type SpanAttributes = Readonly<
  Record<string, string | number | boolean | readonly string[] | undefined>
>;

/** A span to link to (a chunk's landing to its batch): opaque outside this room. */
export type SpanRef = SpanContext;

/** One of envdata's spans as the code around it sees it: a no-op while tracing is off. */
export interface TraceSpan {
  /** Whether it is recorded (tracing on and the trace sampled): worth computing attributes. */
  readonly recording: boolean;
  setAttributes(attributes: SpanAttributes): void;
  /** Links it to `to` (a span of another trace). */
  link(to: SpanRef | undefined, attributes?: SpanAttributes): void;
  /** What another span links to; `undefined` while tracing is off. */
  ref(): SpanRef | undefined;
}

export interface SpanOptions {
  readonly kind?: 'internal' | 'client' | 'producer';
  readonly attributes?: SpanAttributes;
  /** When it started, if before now (the queue's wait starts at the enqueue). */
  readonly startTime?: Date;
  readonly links?: readonly (SpanRef | undefined)[];
  /** The root of a trace of its own, whatever span is active (a batch shared by chunks). */
  readonly root?: boolean;
}

/** Set while tracing runs in this process; `undefined` keeps every helper here a no-op. */
let sdk: TracingSdk | undefined;
let secrets: readonly string[] = [];

const NOOP_SPAN: TraceSpan = {
  recording: false,
  setAttributes: () => undefined,
  link: () => undefined,
  ref: () => undefined,
};

/** What spans say of the kind of work (`SpanKind`'s values). */
const KINDS = { internal: 0, client: 2, producer: 3 } as const;

/**
 * Starts tracing in this process when the standard OpenTelemetry variables ask for it
 * (`tracingEnabled`): the SDK is imported only then, so a process without them loads none of
 * it. `OTEL_SERVICE_NAME` wins over the default `envdata-<role>`. Idempotent.
 * `secretValues` (the API key, webhook URLs) are scrubbed from every error message a span keeps.
 */
export async function startTracing(
  role: ProcessRole,
  env: TracingEnvironment,
  secretValues: readonly (string | undefined)[] = [],
): Promise<boolean> {
  if (sdk) return true;
  if (!tracingEnabled(env)) return false;
  const { startTracingSdk } = await import('./tracing-sdk.js');
  secrets = secretValues.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  sdk = startTracingSdk({ serviceName: `envdata-${role}`, env });
  return true;
}

/** Whether tracing runs in this process. */
export function tracingStarted(): boolean {
  return sdk !== undefined;
}

/** Exports the spans ended so far (the app's close); resolves at once while tracing is off. */
export async function flushTracing(): Promise<void> {
  await sdk?.flush();
}

/** Exports what is left and stops tracing (the process ends). */
export async function shutdownTracing(): Promise<void> {
  const stopping = sdk;
  sdk = undefined;
  await stopping?.shutdown();
}

/** BullMQ's `telemetry` option for queues and workers; `undefined` while tracing is off. */
export function queueTelemetry(): Telemetry | undefined {
  return sdk?.telemetry;
}

/**
 * Runs `fn` in a span named `name`, the active span while it runs (spans started inside are its
 * children); a throw ends it with status ERROR, the error's name and scrubbed message kept.
 * While tracing is off, `fn` runs with a no-op span and nothing else is done.
 */
export function inSpan<T>(
  name: string,
  fn: (span: TraceSpan) => Promise<T>,
  options?: SpanOptions,
): Promise<T> {
  const live = sdk;
  if (!live || unsampled(live, options)) return fn(NOOP_SPAN);
  return live.tracer.startActiveSpan(name, spanOptions(options), async (span) => {
    try {
      return await fn(new LiveSpan(span));
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** `inSpan` for synchronous work (normalising an answer). */
export function inSpanSync<T>(name: string, fn: (span: TraceSpan) => T, options?: SpanOptions): T {
  const live = sdk;
  if (!live || unsampled(live, options)) return fn(NOOP_SPAN);
  return live.tracer.startActiveSpan(name, spanOptions(options), (span) => {
    try {
      return fn(new LiveSpan(span));
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A span that ended already, from `options.startTime` to now (the queue's wait). */
export function recordSpan(name: string, options: SpanOptions): void {
  const live = sdk;
  if (!live || unsampled(live, options)) return;
  live.tracer.startSpan(name, spanOptions(options)).end();
}

/** Sets attributes on the active span, if one is recorded. */
export function annotateSpan(attributes: SpanAttributes): void {
  const span = sdk?.activeSpan();
  if (span?.isRecording()) span.setAttributes(clean(attributes));
}

/**
 * The trace id of the active span (32 hex digits) when its trace is sampled, what a ledger row
 * keeps; `null` otherwise (tracing off, or not sampled: nothing would be found by it).
 */
export function currentTraceId(): string | null {
  const context = sdk?.activeSpan()?.spanContext();
  return context && (context.traceFlags & 1) === 1 ? context.traceId : null;
}

/** The W3C `traceparent` of the active span (a run's plan keeps it); `null` while off. */
export function currentTraceparent(): string | null {
  return sdk?.traceparentOf() ?? null;
}

/**
 * One PRODUCER span per item (`envdata.chunk.enqueue`), each the root of a trace of its own,
 * linked to its `link` (a run's `traceparent`). Returns BullMQ's job metadata of each (the
 * context the worker's span continues) and `end`, to call once the jobs are added. While tracing
 * is off: no metadata, nothing to end.
 */
export function producerSpans(
  name: string,
  items: readonly { readonly attributes: SpanAttributes; readonly link?: string | null }[],
): { readonly metadata: readonly (string | undefined)[]; end(error?: unknown): void } {
  const live = sdk;
  if (!live) return { metadata: [], end: () => undefined };
  const spans = items.map((item) => {
    const linked = item.link ? live.parseTraceparent(item.link) : undefined;
    return live.tracer.startSpan(name, {
      kind: KINDS.producer,
      root: true,
      attributes: clean(item.attributes),
      ...(linked && { links: [{ context: linked }] }),
    });
  });
  return {
    metadata: spans.map((span) => live.jobMetadataOf(span)),
    end(error) {
      for (const span of spans) {
        if (error !== undefined) failSpan(span, error);
        span.end();
      }
    },
  };
}

/**
 * pino's `mixin` when tracing runs: `trace_id` and `span_id` of the active span on every line
 * logged while one is (`createLogger`); `undefined` while off, so no line pays for it.
 */
export function logTraceMixin(): (() => Record<string, string>) | undefined {
  if (!sdk) return undefined;
  return (): Record<string, string> => {
    const context = sdk?.activeSpan()?.spanContext();
    if (!context || (context.traceFlags & 1) !== 1) return {};
    return { trace_id: context.traceId, span_id: context.spanId };
  };
}

class LiveSpan implements TraceSpan {
  constructor(private readonly span: Span) {}
  get recording(): boolean {
    return this.span.isRecording();
  }
  setAttributes(attributes: SpanAttributes): void {
    if (this.span.isRecording()) this.span.setAttributes(clean(attributes));
  }
  link(to: SpanRef | undefined, attributes?: SpanAttributes): void {
    if (to && this.span.isRecording()) {
      this.span.addLink({ context: to, ...(attributes && { attributes: clean(attributes) }) });
    }
  }
  ref(): SpanRef | undefined {
    return this.span.spanContext();
  }
}

/**
 * Whether a span would be dropped anyway: a child of a span not sampled (every standard sampler
 * decides so: `parentbased_*` by the parent, `traceidratio` by the same trace id). Then no span
 * is made at all: at 10 % sampling, nine chunks in ten pay for none of theirs.
 */
function unsampled(live: TracingSdk, options: SpanOptions | undefined): boolean {
  if (options?.root) return false;
  const parent = live.activeSpan();
  return parent !== undefined && !parent.isRecording();
}

function spanOptions(options: SpanOptions | undefined) {
  if (!options) return {};
  const links = options.links?.filter((l): l is SpanRef => l !== undefined);
  return {
    kind: KINDS[options.kind ?? 'internal'],
    ...(options.attributes && { attributes: clean(options.attributes) }),
    ...(options.startTime && { startTime: options.startTime }),
    ...(links && links.length > 0 && { links: links.map((context) => ({ context })) }),
    ...(options.root && { root: true }),
  };
}

/** Status ERROR with the error's name (its `code` when it has one) and its message, scrubbed. */
function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = scrub(error instanceof Error ? error.message : String(error));
  span.setStatus({ code: 2, message });
  span.addEvent('exception', {
    'exception.type': typeof code === 'string' ? code : name,
    'exception.message': message,
  });
}

function scrub(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out;
}

/** Attributes without `undefined` values, string values scrubbed of secrets. */
function clean(attributes: SpanAttributes): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    if (typeof value === 'string') out[key] = secrets.length === 0 ? value : scrub(value);
    else if (typeof value === 'object') out[key] = value.map(scrub);
    else out[key] = value;
  }
  return out;
}
