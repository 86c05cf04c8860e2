import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { createRunWithGaps } from '../src/ledger/create-run-with-gaps.js';
import { foldDoneChunks } from '../src/ledger/fold-done-chunks.js';
import { materializeChunks } from '../src/ledger/materialize-chunks.js';
import { createLogger } from '../src/logging/create-logger.js';
import { createDatabase } from '../src/warehouse/create-database.js';
import { withDatabase } from '../src/warehouse/database-url.js';
import { migrateToLatest } from '../src/warehouse/migrate-to-latest.js';
import type { Database } from '../src/warehouse/schema.js';

export interface LedgerSize {
  readonly chunks: number;
  readonly locationYears: number;
  /** Run, gap and chunk tables with every chunk done: what the ledger kept before coverage. */
  readonly beforeBytes: number;
  /** Run, gap, chunk, coverage and hole tables once the done chunks are folded into the run. */
  readonly afterBytes: number;
}

const WINDOW_MS = 48 * 3_600_000;

const LEDGER_TABLES = ['run', 'run_gap', 'chunk', 'coverage', 'coverage_hole'] as const;

async function ledgerBytes(db: Kysely<Database>): Promise<number> {
  // VACUUM FULL: the size the rows need, not the pages deleted rows leave until autovacuum
  // makes them reusable.
  for (const table of LEDGER_TABLES) {
    await sql`vacuum full ${sql.table(`envdata.${table}`)}`.execute(db);
  }
  const { rows } = await sql<{ bytes: number }>`
    select (${sql.join(
      LEDGER_TABLES.map((t) => sql`pg_total_relation_size(${`envdata.${t}`})`),
      sql` + `,
    )})::float8 as bytes`.execute(db);
  return rows[0]!.bytes;
}

/**
 * The ledger of a finished plan of `chunks` 48-hour weather chunks over 1,000 locations, in a
 * database of its own on `serverUrl` (created, migrated and dropped here): the run and its gaps
 * planned and turned into chunks as in production (`createRunWithGaps`, `materializeChunks`),
 * then marked done server-side as the landings leave them (the ledger before coverage), then the
 * coverage those chunks landed and the chunks folded into their run (the ledger now).
 */
export async function measureLedgerSize(serverUrl: string, chunks = 200_000): Promise<LedgerSize> {
  const name = `envdata_bench_ledger_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${pg.escapeIdentifier(name)}`);
  const logger = createLogger({ level: 'error', format: 'json' });
  const db = createDatabase({ url: withDatabase(serverUrl, name), poolMax: 2, logger });
  try {
    await migrateToLatest(db, logger);
    return await measure(db, chunks);
  } finally {
    await db.destroy();
    await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
    await admin.end();
  }
}

async function measure(db: Kysely<Database>, chunks: number): Promise<LedgerSize> {
  const { rows: locations } = await sql<{ location_id: number }>`
    insert into envdata.location (name, name_key, lat, lng, country_code, timezone, pollen_region, registered_by)
    select 'ledger ' || g, 'ledger ' || g, -60 + (g % 120) + g * 0.0001, -170 + (g % 340) + g * 0.0001, 'DE',
      'Europe/Berlin', 'europe', 'coordinates'
    from generate_series(1, 1000) g
    returning location_id`.execute(db);
  // Each location's gap holds its share of the chunks: 48 h windows from 1995 on, on the grid.
  const start = Math.ceil(Date.UTC(1995, 0, 1) / WINDOW_MS) * WINDOW_MS;
  const gaps = locations
    .map((l, i) => ({
      dataset: 'weather' as const,
      locationId: l.location_id,
      windows: Math.floor(chunks / locations.length) + (i < chunks % locations.length ? 1 : 0),
    }))
    .filter((g) => g.windows > 0)
    .map(({ windows, ...g }) => ({
      ...g,
      from: new Date(start),
      to: new Date(start + windows * WINDOW_MS),
    }));
  const runId = await createRunWithGaps(db, {
    kind: 'backfill',
    priority: 0,
    windowHours: 48,
    gaps,
    request: { bench: 'ledger-size' },
  });
  let planned = 0;
  for (;;) {
    const fed = await materializeChunks(db, 50_000, { recheckMs: 0 });
    if (fed.length === 0) break;
    planned += fed.length;
  }
  if (planned !== chunks) throw new Error(`planned ${planned} chunks, not ${chunks}`);
  await sql`
    update envdata.chunk set status = 'done', outcome = 'rows', attempts = 1, calls = 1,
      rows_landed = 48, started_at = now() - interval '2 hours',
      finished_at = now() - interval '2 hours'
    where run_id = ${runId}`.execute(db);
  const beforeBytes = await ledgerBytes(db);
  await sql`
    insert into envdata.coverage as c (location_id, dataset, landed)
    select location_id, dataset, range_agg(tstzrange(window_from, window_to))
    from envdata.chunk where run_id = ${runId} group by location_id, dataset
    on conflict (location_id, dataset) do update set landed = c.landed + excluded.landed`.execute(
    db,
  );
  await foldDoneChunks(db, 0);
  const afterBytes = await ledgerBytes(db);
  return {
    chunks,
    locationYears: (chunks * 48) / 8_766,
    beforeBytes,
    afterBytes,
  };
}
