import type { Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';

/** What the SDK module (`tracing-sdk.ts`) gives once tracing is started. */
export interface TracingSdk {
  readonly tracer: Tracer;
  /** BullMQ's `telemetry` option (`bullmq-otel`): trace context travels in the jobs. */
  readonly telemetry: Telemetry;
  /**
   * The context active now: set by `runIn` for the synchronous part of what it runs only (no
   * AsyncLocalStorage: contexts are carried by hand across awaits).
   */
  readonly activeContext: () => Context;
  readonly rootContext: Context;
  readonly spanOf: (context: Context) => Span | undefined;
  /** `context` with `span` as its span: the parent of `span`'s children. */
  readonly contextWith: (context: Context, span: Span) => Context;
  readonly runIn: <T>(context: Context, fn: () => T) => T;
  /** The W3C `traceparent` of the span of `context`. */
  readonly traceparentOf: (context: Context) => string | undefined;
  /** The span context a `traceparent` names, to link to. */
  readonly parseTraceparent: (traceparent: string) => SpanContext | undefined;
  /** BullMQ's job metadata for `span`: the context a consumer continues (`opts.telemetry.metadata`). */
  readonly jobMetadataOf: (span: Span) => string;
  readonly flush: () => Promise<void>;
  readonly shutdown: () => Promise<void>;
}
