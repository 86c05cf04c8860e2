import type { Context, Span, SpanContext } from '@opentelemetry/api';
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

declare const parentBrand: unique symbol;
/**
 * Where spans of a piece of work go: the span they are the children of (and whether its trace is
 * sampled), opaque outside this room. Carried by hand (`SpanOptions.parent`, `TraceSpan.scope`)
 * from a chunk's `process` span down to its landing, not by AsyncLocalStorage: on Node 20 that
 * makes every promise of the process pay a hook, tracing sampled or not (bench:backfill part 5).
 */
export type TraceParent = { readonly [parentBrand]: true };

/** One of envdata's spans as the code around it sees it: a no-op while tracing is off. */
export interface TraceSpan {
  /** Whether it is recorded (tracing on and the trace sampled): worth computing attributes. */
  readonly recording: boolean;
  setAttributes(attributes: SpanAttributes): void;
  /** Links it to `to` (a span of another trace). */
  link(to: SpanRef | undefined, attributes?: SpanAttributes): void;
  /** What another span links to; `undefined` while tracing is off. */
  ref(): SpanRef | undefined;
  /**
   * The parent of spans under this one (`SpanOptions.parent`); `undefined` while tracing is off.
   * Under a trace not sampled it is that trace's, so nothing under it is sampled either.
   */
  readonly scope: TraceParent | undefined;
}

export interface SpanOptions {
  readonly kind?: 'internal' | 'client' | 'producer';
  readonly attributes?: SpanAttributes;
  /** When it started, if before now (the queue's wait starts at the enqueue). */
  readonly startTime?: Date;
  readonly links?: readonly (SpanRef | undefined)[];
  /** The root of a trace of its own, whatever its parent (a batch shared by chunks). */
  readonly root?: boolean;
  /**
   * The span it is a child of (`TraceSpan.scope`, `activeTraceParent()`); without it, the span
   * active in the synchronous code calling (none: the root of a trace of its own).
   */
  readonly parent?: TraceParent | undefined;
}

/** Set while tracing runs in this process; `undefined` keeps every helper here a no-op. */
let sdk: TracingSdk | undefined;
let secrets: readonly string[] = [];

/** The span of everything while tracing is off; `noopUnder` one of a trace not sampled. */
export const NO_SPAN: TraceSpan = {
  recording: false,
  setAttributes: () => undefined,
  link: () => undefined,
  ref: () => undefined,
  scope: undefined,
};

const noopUnder = (parent: Context): TraceSpan => ({ ...NO_SPAN, scope: asParent(parent) });
const asParent = (context: Context) => context as unknown as TraceParent;
const asContext = (parent: TraceParent) => parent as unknown as Context;

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
 * Runs `fn` in a span named `name`, the child of `options.parent` (spans under it take
 * `span.scope` as theirs), also the active span while `fn` runs synchronously (log lines,
 * BullMQ's calls); a throw ends it with status ERROR, the error's name and scrubbed message kept.
 * While tracing is off, or under a trace not sampled, `fn` runs with a no-op span and no span is
 * made at all: at 10 % sampling, nine chunks in ten pay for none of theirs.
 */
export function inSpan<T>(
  name: string,
  fn: (span: TraceSpan) => Promise<T>,
  options?: SpanOptions,
): Promise<T> {
  const live = sdk;
  if (!live) return fn(NO_SPAN);
  const parent = parentOf(live, options);
  if (!recorded(live, parent)) return fn(noopUnder(parent));
  const span = live.tracer.startSpan(name, spanOptions(options), parent);
  const scope = live.contextWith(parent, span);
  return live.runIn(scope, async () => {
    try {
      return await fn(new LiveSpan(span, scope));
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
  if (!live) return fn(NO_SPAN);
  const parent = parentOf(live, options);
  if (!recorded(live, parent)) return fn(noopUnder(parent));
  const span = live.tracer.startSpan(name, spanOptions(options), parent);
  const scope = live.contextWith(parent, span);
  return live.runIn(scope, () => {
    try {
      return fn(new LiveSpan(span, scope));
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
  if (!live) return;
  const parent = parentOf(live, options);
  if (recorded(live, parent)) live.tracer.startSpan(name, spanOptions(options), parent).end();
}

/**
 * The span active in the synchronous code calling, as a parent to carry: what a job's processor
 * takes of BullMQ's `process` span as it is called. `undefined` while tracing is off.
 */
export function activeTraceParent(): TraceParent | undefined {
  return sdk ? asParent(sdk.activeContext()) : undefined;
}

/**
 * The trace id of `parent`'s span (32 hex digits) when its trace is sampled, what a ledger row
 * keeps; `null` otherwise (tracing off, or not sampled: nothing would be found by it).
 */
export function traceIdOf(parent: TraceParent | undefined): string | null {
  const context = parent && sdk?.spanOf(asContext(parent))?.spanContext();
  return context && (context.traceFlags & 1) === 1 ? context.traceId : null;
}

/** The W3C `traceparent` of `parent`'s span (a run's plan keeps it); `null` while off. */
export function traceparentOf(parent: TraceParent | undefined): string | null {
  return (parent && sdk?.traceparentOf(asContext(parent))) ?? null;
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

/** A log line's `trace_id` and `span_id`: those of a span of a sampled trace. */
export interface TraceLogFields {
  readonly trace_id: string;
  readonly span_id: string;
}

/**
 * The log fields of `parent`'s span when its trace is sampled (a job's lines, by a child logger);
 * `undefined` otherwise.
 */
export function logFieldsOf(parent: TraceParent | undefined): TraceLogFields | undefined {
  const context = parent && sdk?.spanOf(asContext(parent))?.spanContext();
  if (!context || (context.traceFlags & 1) !== 1) return undefined;
  return { trace_id: context.traceId, span_id: context.spanId };
}

/**
 * pino's `mixin` when tracing runs: the log fields of the span active in the synchronous code
 * writing a line (`createLogger`); `undefined` while off, so no line pays for it. Lines written
 * after an await carry them when written by a child logger given them (`logFieldsOf`).
 */
export function logTraceMixin(): (() => Partial<TraceLogFields>) | undefined {
  const live = sdk;
  if (!live) return undefined;
  return () => logFieldsOf(asParent(live.activeContext())) ?? {};
}

class LiveSpan implements TraceSpan {
  readonly scope: TraceParent;
  constructor(
    private readonly span: Span,
    context: Context,
  ) {
    this.scope = asParent(context);
  }
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

/** The context a new span starts in: the root for `root`, else `options.parent`, else the one active now. */
function parentOf(live: TracingSdk, options: SpanOptions | undefined): Context {
  if (options?.root) return live.rootContext;
  return options?.parent ? asContext(options.parent) : live.activeContext();
}

/**
 * Whether spans under `parent` are recorded: not when its span is not (every standard sampler
 * decides so: `parentbased_*` by the parent, `traceidratio` by the same trace id), and then no
 * span is made at all.
 */
function recorded(live: TracingSdk, parent: Context): boolean {
  const span = live.spanOf(parent);
  return span === undefined || span.isRecording();
}

function spanOptions(options: SpanOptions | undefined) {
  if (!options) return {};
  const links = options.links?.filter((l): l is SpanRef => l !== undefined);
  return {
    kind: KINDS[options.kind ?? 'internal'],
    ...(options.attributes && { attributes: clean(options.attributes) }),
    ...(options.startTime && { startTime: options.startTime }),
    ...(links && links.length > 0 && { links: links.map((context) => ({ context })) }),
  };
}

/** BullMQ's errors that move a job rather than fail it (by name: this room imports no BullMQ). */
const JOB_MOVES = new Set([
  'DelayedError',
  'WaitingError',
  'WaitingChildrenError',
  'RateLimitError',
]);

/** Status ERROR with the error's name (its `code` when it has one) and its message, scrubbed. */
function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const name = error instanceof Error ? error.name : typeof error;
  // How a processor tells BullMQ to move its job (later, back to the queue): no failure.
  if (JOB_MOVES.has(name)) {
    span.setAttribute('envdata.job.moved', name);
    return;
  }
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
  // Looked for first: nearly every value holds none, and then nothing is copied.
  for (const secret of secrets)
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
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
