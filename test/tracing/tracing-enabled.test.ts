import { describe, expect, it } from 'vitest';
import { tracingEnabled } from '../../src/tracing/tracing-enabled.js';

const ENDPOINT = 'http://127.0.0.1:4318';

describe('tracingEnabled: the standard OpenTelemetry variables', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_SERVICE_NAME: 'envdata' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'false' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp' }, true],
  ])('%j: %s', (env, enabled) => {
    expect(tracingEnabled(env)).toBe(enabled);
  });
});
