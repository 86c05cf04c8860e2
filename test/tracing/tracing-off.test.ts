import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
const dir = useTempDir('envdata-tracing-off-');

/** What names the OpenTelemetry SDK and BullMQ's telemetry among the modules a process loads. */
const SDK_MODULE = /@opentelemetry\/(sdk-trace|exporter-trace-otlp|resources)|bullmq-otel/;

/**
 * Runs `envdata ARGS…` with a module hook (`module.register`) that writes the URL of every module
 * it resolves to a file: the modules of the OpenTelemetry SDK it loaded, whichever way (static,
 * dynamic, through tsx).
 */
async function sdkModulesLoadedBy(
  name: string,
  args: readonly string[],
  extra: Record<string, string> = {},
): Promise<{ code: number | null; sdk: string[] }> {
  const log = dir.path(`${name}.modules`);
  const hooks = await dir.write(
    `${name}-hooks.mjs`,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
  return resolved;
}`,
  );
  const register = await dir.write(
    `${name}-register.mjs`,
    `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});`,
  );
  const result = await runEnvdata(args, {
    ...env.cliEnv(extra),
    NODE_OPTIONS: `--import=${pathToFileURL(register).href}`,
  });
  const loaded = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  expect(loaded.length, `${name}: the hook saw no module at all`).toBeGreaterThan(10);
  return { code: result.code, sdk: loaded.filter((url) => SDK_MODULE.test(url)) };
}

describe('with the OpenTelemetry variables unset', () => {
  it('`--help` and `status` load no module of the SDK; a traced command with them set does', async () => {
    const help = await sdkModulesLoadedBy('help', ['--help']);
    expect(help.code).toBe(0);
    expect(help.sdk).toEqual([]);

    const status = await sdkModulesLoadedBy('status', ['status']);
    expect(status.code).not.toBeNull();
    expect(status.sdk).toEqual([]);

    // The check can fail: `rebuild` traces, and with an endpoint set it loads the SDK.
    const traced = await sdkModulesLoadedBy('rebuild', ['rebuild', '--dataset', 'weather'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_BSP_EXPORT_TIMEOUT: '200',
    });
    expect(traced.code).toBe(0);
    expect(traced.sdk.some((url) => url.includes('@opentelemetry/sdk-trace-node'))).toBe(true);
    expect(traced.sdk.some((url) => url.includes('bullmq-otel'))).toBe(true);

    // Turned off by the standard switch, the same command loads none of it.
    const disabled = await sdkModulesLoadedBy('disabled', ['rebuild', '--dataset', 'weather'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_SDK_DISABLED: 'true',
    });
    expect(disabled.code).toBe(0);
    expect(disabled.sdk).toEqual([]);
  });
});
