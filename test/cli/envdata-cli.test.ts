import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../src/config/environment-variables.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
const base = () => env.cliEnv({ LOG_FORMAT: 'json' });

describe('envdata CLI', () => {
  it('--help lists commands and options, exit 0; `help environment` every variable', async () => {
    const result = await runEnvdata(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['migrate', 'status', 'demo']) expect(result.stdout).toContain(command);
    const environment = await runEnvdata(['help', 'environment']);
    expect(environment.code).toBe(0);
    for (const variable of ENVIRONMENT_VARIABLES) {
      expect(environment.stdout).toContain(variable.name);
    }
  });

  it('an unknown command prints usage and exits 2', async () => {
    const result = await runEnvdata(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(result.stderr).toMatch(/--help/);
  });

  it('an unknown flag exits 2 and touches nothing', async () => {
    const result = await runEnvdata(['migrate', '--force-everything'], base());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--force-everything'/);
  });

  it('a bad environment exits 2 listing every problem, without a stack trace', async () => {
    const result = await runEnvdata(['status'], {
      DATABASE_URL: 'not-a-url',
      ENVDATA_WORKER_CONCURRENCY: 'many',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stderr).toContain('ENVDATA_WORKER_CONCURRENCY');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unreachable Postgres gives one line naming the masked URL and how to start it, exit 1', async () => {
    const result = await runEnvdata(['migrate'], {
      ...base(),
      DATABASE_URL: 'postgres://envdata:s3cret@127.0.0.1:1/envdata',
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('postgres://envdata:***@127.0.0.1:1/envdata');
    expect(lines[0]).toMatch(/start Postgres/);
    expect(result.stderr).not.toContain('s3cret');
  });

  it('status reports an unreachable Redis with how to start it, exit 1 (or, on the Postgres backend, needs none)', async () => {
    const result = await runEnvdata(['status'], { ...base(), REDIS_URL: 'redis://127.0.0.1:1' });
    if (env.queueBackend === 'redis') {
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/redis\s+redis:\/\/127\.0\.0\.1:1\s+DOWN.*start Redis/);
    } else {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/queue\s+postgres backend, schema envdata_queue\s+ok/);
      expect(result.stdout).not.toMatch(/redis/i);
    }
  });

  it('migrate is idempotent and status then reports healthy services, exit 0', async () => {
    const migrate = await runEnvdata(['migrate'], base());
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/0 migration\(s\) applied/);
    const status = await runEnvdata(['status', '--json'], base());
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout) as {
      postgres: { ok: boolean; pendingMigrations: string[] };
      queue: { ok: boolean };
    };
    expect(parsed.postgres).toMatchObject({ ok: true, pendingMigrations: [] });
    expect(parsed.queue.ok).toBe(true);
  });

  it('locations add registers a point with its country, zone and region; a duplicate exits 2', async () => {
    const added = await runEnvdata(
      ['locations', 'add', '--lat', '-27.4698', '--lng', '153.0251'],
      base(),
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(
      /Brisbane.*AU Australia\/Brisbane \(pollen region australia_qld_nt\)/,
    );
    const again = await runEnvdata(
      ['locations', 'add', '--lat', '-27.4698', '--lng', '153.0251', '--name', 'Other'],
      base(),
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already registered/);
    const list = await runEnvdata(['locations', 'list', '--json'], base());
    const listed = JSON.parse(list.stdout) as { locations: { name: string }[] };
    expect(listed.locations.map((l) => l.name)).toEqual(['Brisbane']);
  });

  it.each([
    [['locations', 'add', '--lat', '95', '--lng', '0'], /--lat must be a number/],
    [
      ['locations', 'add', '--lat', 'abc', '--lng', '0', '--name', 'x'],
      /--lat must be a plain decimal number/,
    ],
    [['rebuild', '--dataset', 'pollen,weather'], /--dataset must be pollen, weather or all/],
    [['rebuild', '--from', '2024-02-30'], /not a real date/],
    [['rebuild', '--from', '2024-03-01', '--to', '2024-02-01'], /must be before --to/],
    [['rebuild', '--location', 'Atlantis'], /unknown location/],
  ])('bad input %j exits 2 with a clear message', async (args, message) => {
    const result = await runEnvdata(args, base());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
