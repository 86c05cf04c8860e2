import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/private-services.js';
import { runEnvdata } from '../harness/run-envdata.js';

let root: string;
let localDir: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'envdata-demo-'));
  // mkdtemp makes it 0700: as root, the server runs as user envdata, which must get through.
  await chmod(root, 0o755);
  localDir = path.join(root, 'local-postgres');
});

afterAll(async () => {
  await runEnvdata(['local', 'stop'], { ENVDATA_LOCAL_DIR: localDir });
  await rm(root, { recursive: true, force: true });
});

describe('npm run demo on a machine without PostgreSQL or Redis', () => {
  it('starts the local PostgreSQL, queues in it, fills the analytics views and says how to go on', async () => {
    const env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/envdata`,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      ENVDATA_LOCAL_DIR: localDir,
      LOG_LEVEL: 'warn',
    };
    const demo = await runEnvdata(['demo'], env);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(
      /^nothing answers at DATABASE_URL .*: creating a local PostgreSQL in .* \(about 15 s, once/m,
    );
    expect(demo.stdout).toMatch(
      /^created and started a local PostgreSQL on 127\.0\.0\.1:\d+, data in /m,
    );
    expect(demo.stdout).toMatch(
      /^nothing answers at REDIS_URL .*: the queue lives in PostgreSQL instead/m,
    );
    expect(demo.stdout).toContain('export ENVDATA_QUEUE_BACKEND=postgres');
    expect(demo.stdout).toMatch(/ local stop` stops the local PostgreSQL/);
    const url = /export DATABASE_URL=(\S+)/.exec(demo.stdout)?.[1];
    expect(url).toBeDefined();

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ weather: number; pollen: number }>(
        `select (select count(*)::int from analytics.weather_daily) as weather,
                  (select count(*)::int from analytics.pollen_daily) as pollen`,
      );
      expect(rows[0]!.weather).toBeGreaterThan(4 * 3000);
      expect(rows[0]!.pollen).toBeGreaterThan(0);
    } finally {
      await client.end();
    }

    // `envdata local status` sees the same server the demo started.
    const status = await runEnvdata(['local', 'status'], { ENVDATA_LOCAL_DIR: localDir });
    expect(status.stdout).toMatch(/running \(pid \d+\)/);
    expect(status.stdout).toContain(`export DATABASE_URL=${url}`);
  }, 240_000);
});
