import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../harness/private-services.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';

// Registering many locations in one transaction on a Postgres of this file's own whose shared
// lock table is small (max_locks_per_transaction 10, max_connections 20: a few hundred entries,
// where a stock server has some 8,000): a transaction that took a lock per name would fill it
// and fail with "out of shared memory" long before 5,000 rows, as an import of 60,000 rows did
// on stock settings. `npm run bench:bulk` shows 100,000 rows on stock settings.
const ROWS = 5_000;
let server: PrivatePostgres;
const dir = useTempDir('envdata-bulk-');

const env = (database: string): Record<string, string> => ({
  DATABASE_URL: server.url(database),
  LOG_LEVEL: 'silent',
});

/** A CSV of `rows` point rows, names `prefix 1…`, on a grid of distinct points from `lat0`. */
async function writePoints(file: string, prefix: string, rows: number, lat0: number) {
  const out = createWriteStream(file);
  out.write('name,lat,lng\n');
  for (let i = 0; i < rows; i += 1) {
    const lat = (lat0 + Math.floor(i / 200) * 0.1).toFixed(1);
    const lng = (-10 + (i % 200) * 0.1).toFixed(1);
    if (!out.write(`${prefix} ${i + 1},${lat},${lng}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The rows `text` returns in `database`, on a connection of its own. */
async function query(database: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: server.url(database) });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(text)).rows;
  } finally {
    await client.end();
  }
}

/** Active locations registered in `database`. */
async function count(database: string): Promise<number> {
  const rows = await query(
    database,
    'select count(*)::int as n from envdata.location where retired_at is null',
  );
  return rows[0]!.n as number;
}

beforeAll(async () => {
  server = await startPrivatePostgres({ maxConnections: 20 });
  const migrated = await Promise.all(
    ['imported', 'declared'].map((database) => runEnvdata(['migrate'], env(database))),
  );
  for (const result of migrated) expect(result.code, result.stderr).toBe(0);
  // Migrating creates many partitions in one transaction: the lock table shrinks afterwards.
  await query('postgres', 'alter system set max_locks_per_transaction = 10');
  await server.stop();
  await server.start();
  expect(await query('postgres', 'show max_locks_per_transaction')).toEqual([
    { max_locks_per_transaction: '10' },
  ]);
});

afterAll(async () => {
  await server?.remove();
});

describe('registering many locations in one transaction', () => {
  it('the server cannot hold a lock per row: one transaction taking 5,000 locks runs out of shared memory', async () => {
    const client = new pg.Client({ connectionString: server.url() });
    await client.connect();
    try {
      await client.query('begin');
      await expect(
        client.query('select count(pg_advisory_xact_lock(i)) from generate_series(1, $1) i', [
          ROWS,
        ]),
      ).rejects.toThrow(/out of shared memory/);
    } finally {
      await client.query('rollback');
      await client.end();
    }
  });

  it(`locations import of ${ROWS} rows registers them all`, async () => {
    const file = dir.path('points.csv');
    await writePoints(file, 'Site', ROWS, 35);
    const result = await runEnvdata(['locations', 'import', file], env('imported'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`imported ${ROWS} location(s)`);
    expect(await count('imported')).toBe(ROWS);
  });

  it(`plan, then apply, of a declared file of ${ROWS} points (a file: entry)`, async () => {
    await writePoints(dir.path('declared.csv'), 'Station', ROWS, 40);
    const file = dir.path('envdata.yaml');
    await writeFile(
      file,
      'version: 1\nlocations:\n  - { file: declared.csv }\ndatasets:\n  weather: { since: -2d }\n',
    );
    const plan = await runEnvdata(['plan', '-f', file, '--json'], env('declared'));
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as { locations: { add: unknown[] } };
    expect(planned.locations.add).toHaveLength(ROWS);
    expect(await count('declared')).toBe(0);

    // Apply queues the run it plans: on the Postgres queue of this server, never called here.
    const apply = await runEnvdata(['apply', '-f', file, '--yes'], {
      ...env('declared'),
      ENVDATA_QUEUE_BACKEND: 'postgres',
      ENVDATA_API_KEY: 'unused',
    });
    expect(apply.code, apply.stderr).toBe(0);
    expect(await count('declared')).toBe(ROWS);
  });
});
