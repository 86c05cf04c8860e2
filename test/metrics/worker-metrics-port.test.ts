import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';
import { checkWithPromtool, parsePrometheusText } from './prometheus-text.js';
import { needsTools } from '../harness/system-tools.js';

const fx = useBackfillFixture();
const children: RunningEnvdata[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGKILL');
      await child.exited;
    }
  }
});

describe('envdata worker --metrics-port', needsTools('promtool'), () => {
  // Postgres and Redis that do not answer: a flag checked after touching them would fail with
  // exit 1 and their message, not exit 2 and the flag's.
  const nowhere = {
    DATABASE_URL: 'postgres://envdata@127.0.0.1:1/nowhere',
    REDIS_URL: 'redis://127.0.0.1:1',
    ENVDATA_API_KEY: DEMO_API_KEY,
  };

  it.each([
    [
      ['--metrics-port', '70000'],
      /--metrics-port must be a port number: a whole number from 0 to 65535 \(got "70000"\)/,
    ],
    [['--metrics-port', '9464x'], /--metrics-port must be a port number.*\(got "9464x"\)/],
    [['--metrics-port', '-1'], /--metrics-port must be a port number/],
    [['--metrics-host', '0.0.0.0'], /--metrics-host needs --metrics-port/],
    [
      ['--metrics-port', '9464', '--metrics-host', 'not a host'],
      /--metrics-host must be an IP address or a host name.*\(got "not a host"\)/,
    ],
    // Five numbers: no IP address, and no name either (a name's last label is never all digits).
    [
      ['--metrics-port', '9464', '--metrics-host', '1.2.3.4.5'],
      /--metrics-host must be an IP address or a host name.*\(got "1\.2\.3\.4\.5"\)/,
    ],
    [
      ['--metrics-port', '9464', '--metrics-host', '999.1.1.1'],
      /--metrics-host must be an IP address or a host name.*\(got "999\.1\.1\.1"\)/,
    ],
    // `.invalid` never resolves (RFC 2606).
    [
      ['--metrics-port', '9464', '--metrics-host', 'metrics.invalid'],
      /--metrics-host "metrics\.invalid" does not resolve/,
    ],
  ])('refuses %j with exit 2 before touching anything', async (flags, message) => {
    const result = await runCliInProcess(['worker', ...flags], nowhere);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/does not answer|ECONNREFUSED|Postgres|Redis/);
  });

  it('serves /metrics and /healthz while it works, and stops on SIGTERM', async () => {
    const running = startEnvdata(
      ['worker', '--concurrency', '1', '--metrics-port', '0'],
      fx.cliEnv({ LOG_LEVEL: 'info' }),
    );
    children.push(running);
    const [, url] = await running.waitFor(/"metrics":"(http:\/\/127\.0\.0\.1:\d+)\/metrics"/);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    checkWithPromtool(text);
    const names = new Set(parsePrometheusText(text).map((s) => s.name));
    for (const name of ['process_cpu_seconds_total', 'envdata_chunks', 'envdata_queue_jobs']) {
      expect(names.has(name), name).toBe(true);
    }
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
  });
});
