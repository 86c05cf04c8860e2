import { sql, type Kysely } from 'kysely';
import { createRun } from '../src/ledger/create-run.js';
import { foldDoneChunks } from '../src/ledger/fold-done-chunks.js';
import type { Database } from '../src/warehouse/schema.js';

export interface LedgerSize {
  readonly chunks: number;
  readonly locationYears: number;
  /** Run, gap and chunk tables with every chunk done: what the ledger kept before coverage. */
  readonly beforeBytes: number;
  /** Run, gap, chunk, coverage and hole tables once the done chunks are folded into the run. */
  readonly afterBytes: number;
}

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
 * The ledger of a finished plan of `chunks` 48-hour weather chunks over `locationIds`, built
 * server-side as the landings leave it: every chunk row done (the ledger before coverage), then
 * the coverage those chunks landed and the chunks folded into their run (the ledger now). Runs
 * in a database of its own: it vacuums the ledger tables.
 */
export async function measureLedgerSize(
  db: Kysely<Database>,
  locationIds: readonly number[],
  chunks = 200_000,
): Promise<LedgerSize> {
  const perLocation = Math.ceil(chunks / locationIds.length);
  const runId = await createRun(db, 'backfill', { bench: 'ledger-size' });
  await sql`
    insert into envdata.chunk (run_id, dataset, location_id, window_from, window_to, status,
      outcome, attempts, calls, rows_landed, started_at, finished_at)
    select ${runId}::int, 'weather', l.id, w.from_at, w.from_at + interval '48 hours', 'done',
      'rows', 1, 1, 48, now() - interval '2 hours', now() - interval '2 hours'
    from unnest(${[...locationIds]}::int[]) as l(id)
    cross join lateral (
      select timestamptz '1995-01-01 00:00:00+00' + g * interval '48 hours' as from_at
      from generate_series(0, ${perLocation - 1}) g) w
    limit ${chunks}`.execute(db);
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
