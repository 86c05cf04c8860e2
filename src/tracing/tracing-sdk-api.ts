import type { Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';

/** What the SDK module (`tracing-sdk.ts`) gives once tracing is started. */
export interface TracingSdk {
  readonly tracer: Tracer;
  /** BullMQ's `telemetry` option (`bullmq-otel`): trace context travels in the jobs. */
  readonly telemetry: Telemetry;
  readonly activeSpan: () => Span | undefined;
  /** The W3C `traceparent` of `span`, or of the active span. */
  readonly traceparentOf: (span?: Span) => string | undefined;
  /** The span context a `traceparent` names, to link to. */
  readonly parseTraceparent: (traceparent: string) => SpanContext | undefined;
  /** BullMQ's job metadata for `span`: the context a consumer continues (`opts.telemetry.metadata`). */
  readonly jobMetadataOf: (span: Span) => string;
  readonly flush: () => Promise<void>;
  readonly shutdown: () => Promise<void>;
}
