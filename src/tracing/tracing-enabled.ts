/** The environment tracing reads: the standard OpenTelemetry variables. */
export type TracingEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * Whether the standard OpenTelemetry variables ask for traces: an OTLP endpoint is set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), the SDK is not
 * disabled (`OTEL_SDK_DISABLED=true`) and traces are not turned off (`OTEL_TRACES_EXPORTER=none`).
 * Only then is the SDK loaded.
 */
export function tracingEnabled(env: TracingEnvironment): boolean {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (!set('OTEL_EXPORTER_OTLP_ENDPOINT') && !set('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) {
    return false;
  }
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase());
  return !exporters.includes('none');
}
