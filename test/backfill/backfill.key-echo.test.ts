import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { API_PRODUCTS } from '../../src/simulator/simulator-endpoints.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { startStubService, type StubService } from '../harness/start-stub-service.js';
import { waitForRun } from '../harness/wait-for-run.js';

// A service that echoes the API key in its answers: in 200 bodies (a top-level field, a field of
// every record, species names, weather summaries, a record bound for quarantine) and in error
// bodies (a 503 that is retried, a 400 that fails its chunk). After a real backfill with the raw
// archive on, the key is nowhere: not in any text, jsonb or bytea column (gzip bodies unpacked)
// of any table (the queue's too, on the postgres backend), nor in any key or value under the
// queue prefix in Redis (on the redis backend).

const KEY = `canary-${randomBytes(8).toString('hex')}`;
const fx = useBackfillFixture({ keys: { [KEY]: API_PRODUCTS } });
let echo: StubService;
let app: App;
const injected = { bodies: 0, errors: 0 };

/** Puts the key into a 200 body wherever a careless service might. */
function echoKey(body: string): string {
  const json = JSON.parse(body) as Record<string, unknown>;
  json.requestedBy = KEY;
  let first = true;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if ('time' in record) {
      record.echo = `served to ${KEY}`;
      if (typeof record.summary === 'string') record.summary = `${record.summary} for ${KEY}`;
      if (first && 'windSpeed' in record) {
        // Implausible: this record goes to quarantine with its raw JSON.
        record.windSpeed = -12;
        first = false;
      }
    }
    const species = record.Species;
    if (species !== null && typeof species === 'object') {
      for (const group of Object.values(species as Record<string, unknown>)) {
        if (group === null || typeof group !== 'object') continue;
        const names = group as Record<string, unknown>;
        for (const name of Object.keys(names)) {
          names[`${name} ${KEY}`] = names[name];
          delete names[name];
        }
      }
    }
    Object.values(record).forEach(walk);
  };
  walk(json);
  injected.bodies += 1;
  return JSON.stringify(json);
}

beforeAll(async () => {
  let pollenBrisbane = 0;
  let weatherBrisbane = 0;
  echo = await startStubService(async (request) => {
    const southern = Number(request.query.get('lat')) < 0;
    if (southern && request.path === '/history/pollen/by-lat-lng' && pollenBrisbane++ === 0) {
      injected.errors += 1;
      return { status: 503, body: JSON.stringify({ message: `overloaded while serving ${KEY}` }) };
    }
    if (southern && request.path === '/weather/history/by-lat-lng' && weatherBrisbane++ === 0) {
      injected.errors += 1;
      return {
        status: 400,
        body: JSON.stringify({ message: `Bad request: key ${KEY} may not ask for this` }),
      };
    }
    const upstream = await fetch(`${fx.simulator.url}${request.path}?${request.query}`, {
      headers: { 'x-api-key': String(request.headers['x-api-key'] ?? '') },
    });
    const body = await upstream.text();
    return { status: upstream.status, body: upstream.ok ? echoKey(body) : body };
  });
  app = fx.newApp({
    ENVDATA_BASE_URL: echo.url,
    ENVDATA_API_KEY: KEY,
    ENVDATA_ARCHIVE_RAW: 'true',
    // One echoed record is quarantined on purpose; re-fetching its hour would only repeat it.
    ENVDATA_REFETCH_ATTEMPTS: '0',
  });
});
afterAll(async () => {
  await echo.close();
});

/** Every column of every table that can hold text: `schema.table.column`, with its type. */
async function textColumns(): Promise<{ relation: string; column: string; type: string }[]> {
  const { rows } = await sql<{ relation: string; column: string; type: string }>`
    select format('%I.%I', n.nspname, c.relname) as relation, a.attname as column,
      t.typname as type
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    join pg_type t on t.oid = a.atttypid
    where c.relkind in ('r', 'p', 'm') and not c.relispartition
      and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
      and a.attnum > 0 and not a.attisdropped
      and (t.typcategory in ('S', 'A', 'U') or t.typname in ('json', 'jsonb', 'bytea'))
    order by 1, 2`.execute(app.db);
  return rows;
}

/** Where the key is in the database: `table.column` for every hit. */
async function databaseHits(): Promise<string[]> {
  const hits: string[] = [];
  for (const { relation, column, type } of await textColumns()) {
    if (type === 'bytea') {
      const { rows } = await sql<{ value: Buffer }>`
        select ${sql.ref(column)} as value from ${sql.raw(relation)}
        where ${sql.ref(column)} is not null`.execute(app.db);
      for (const { value } of rows) {
        const gzip = value[0] === 0x1f && value[1] === 0x8b;
        const text = (gzip ? gunzipSync(value) : value).toString('utf8');
        if (text.includes(KEY)) hits.push(`${relation}.${column}`);
      }
      continue;
    }
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.raw(relation)}
      where strpos(${sql.ref(column)}::text, ${KEY}) > 0`.execute(app.db);
    if (rows[0]!.n > 0) hits.push(`${relation}.${column} (${rows[0]!.n} rows)`);
  }
  return hits;
}

/** Where the key is in Redis under this file's prefix: key names and values of every type. */
async function redisHits(): Promise<string[]> {
  const redis = new Redis(fx.env.redisUrl, { maxRetriesPerRequest: 1 });
  const hits: string[] = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(
        cursor,
        'MATCH',
        `${fx.env.queuePrefix}:*`,
        'COUNT',
        500,
      );
      cursor = next;
      for (const key of keys) {
        if (key.includes(KEY)) hits.push(`key name ${key}`);
        const type = await redis.type(key);
        const values: string[] =
          type === 'string'
            ? [(await redis.get(key)) ?? '']
            : type === 'hash'
              ? Object.entries(await redis.hgetall(key)).flat()
              : type === 'list'
                ? await redis.lrange(key, 0, -1)
                : type === 'set'
                  ? await redis.smembers(key)
                  : type === 'zset'
                    ? await redis.zrange(key, 0, -1)
                    : type === 'stream'
                      ? (await redis.xrange(key, '-', '+')).flatMap(([id, fields]) => [
                          id,
                          ...fields,
                        ])
                      : [];
        if (values.some((v) => v.includes(KEY))) hits.push(`${type} ${key}`);
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return hits;
}

describe('a service that echoes the API key', () => {
  it('leaves no trace of it in the warehouse or in the queue after a backfill', async () => {
    const worker = IngestWorker.start(app, { concurrency: 2 });
    let runId: number;
    try {
      const start = await startBackfill(app, {
        ...backfillRange('2024-06-02', '2024-06-06'),
        locations: fx.locations,
      });
      runId = start.runId!;
      const progress = await waitForRun(app.db, runId);
      // 8 chunks: the one answered 400 fails, the one answered 503 lands on its retry.
      expect(progress).toMatchObject({ total: 8, done: 7, failed: 1 });
    } finally {
      await worker.close();
    }

    // The key did travel: every echo landed, scrubbed to the marker.
    expect(injected).toEqual({ bodies: 7, errors: 2 });
    // Species of every category were renamed; `Others` is a bare count, not a name.
    const species = await app.db
      .selectFrom('pollen_species')
      .select('name')
      .where('category', '!=', 'other')
      .execute();
    expect(species.length).toBeGreaterThan(0);
    expect(species.filter((s) => !s.name.endsWith(' [redacted]'))).toEqual([]);
    const failed = await app.db
      .selectFrom('chunk')
      .select(['error_code', 'error_message'])
      .where('run_id', '=', runId)
      .where('status', '=', 'failed')
      .execute();
    expect(failed).toMatchObject([{ error_code: 'BAD_REQUEST' }]);
    expect(failed[0]!.error_message).toContain('[redacted]');
    const quarantined = await app.db.selectFrom('quarantine').select('raw').execute();
    expect(quarantined.length).toBeGreaterThan(0);
    expect(JSON.stringify(quarantined)).toContain('[redacted]');
    expect(await app.db.selectFrom('raw_payload').select('chunk_id').execute()).toHaveLength(7);

    // On the postgres backend the queue's tables are in the database: `databaseHits` read them.
    expect(await databaseHits()).toEqual([]);
    if (fx.env.queueBackend === 'redis') expect(await redisHits()).toEqual([]);
  });
});
