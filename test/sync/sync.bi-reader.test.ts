import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvdataError } from '../../src/errors/envdata-error.js';
import { hasSqlState, SQLSTATE } from '../../src/errors/pg-errors.js';
import { ANALYTICS_VIEW_KEYS } from '../../src/warehouse/analytics-view-keys.js';
import { dropExpiredSnapshots } from '../../src/warehouse/drop-expired-snapshots.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import { ensureMonthPartitions } from '../../src/warehouse/month-partitions.js';
import { FolderMigrationProvider, migrateToLatest } from '../../src/warehouse/migrate-to-latest.js';
import type { Database } from '../../src/warehouse/schema.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { snapshotPartitions } from '../harness/snapshot-partitions.js';
import { syncAt } from '../harness/sync-at.js';

// A lookback past a day: each sync lands the hours the previous day's forecasts were about.
const fx = useBackfillFixture({}, { ENVDATA_SYNC_LOOKBACK: '30h', ENVDATA_SYNC_HORIZON: '30h' });

/** A BI role of this file's own: the role is cluster-wide, and other files use envdata_bi. */
const ROLE = `envdata_bi_${randomBytes(4).toString('hex')}`;
const PASSWORD = `bi-${randomBytes(8).toString('hex')}`;
const TABLES = ['pollen_snapshot', 'pollen_species_snapshot', 'weather_snapshot'] as const;
/** A migration to come that changes a table the BI session reads: it needs ACCESS EXCLUSIVE. */
const TEST_MIGRATION = '2099_12_31_9999_bi_reader_column';

/** The migrations of the repository, and one more that alters `envdata.weather_hourly`. */
class WithTestMigration implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      ...(await new FolderMigrationProvider().getMigrations()),
      [TEST_MIGRATION]: {
        up: async (db: Kysely<unknown>) => {
          await sql`alter table envdata.weather_hourly add column bi_reader_test integer`.execute(
            db,
          );
        },
      },
    };
  }
}

let bi: pg.Client | undefined;

beforeAll(async () => {
  await ensureBiRole(fx.app.db, { role: ROLE, password: PASSWORD });
});
afterAll(async () => {
  // Whatever a failed test left waiting behind the read ends with it.
  await bi?.end().catch(() => undefined);
  await sql.raw(`drop owned by ${ROLE}`).execute(fx.app.db);
  await sql.raw(`drop role if exists ${ROLE}`).execute(fx.app.db);
});

/**
 * Logs in as the BI role, lifts every timeout of its session, and reads every analytics view in
 * a transaction it leaves open: the read locks it holds stay until the test ends it.
 */
async function holdLongRead(): Promise<pg.Client> {
  const url = new URL(fx.env.databaseUrl);
  url.username = ROLE;
  url.password = PASSWORD;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query(`set statement_timeout = 0`);
  await client.query(`set idle_in_transaction_session_timeout = 0`);
  await client.query('begin');
  for (const view of Object.keys(ANALYTICS_VIEW_KEYS)) {
    await client.query(`select count(*) from analytics.${view}`);
  }
  return client;
}

/** Which of three tables the session `pid` holds a read lock on. */
async function readLocks(db: Kysely<Database>, pid: number): Promise<string[]> {
  const { rows } = await sql<{ table: string }>`
    select c.relname as table from pg_locks l join pg_class c on c.oid = l.relation
    where l.pid = ${pid} and l.granted and l.mode = 'AccessShareLock'
      and c.relnamespace = 'envdata'::regnamespace
      and c.relname in ('weather_snapshot', 'weather_hourly', 'pollen_snapshot')
    order by 1`.execute(db);
  return rows.map((r) => r.table);
}

/** The backend pid of `client`'s session. */
async function pidOf(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  return rows[0]!.pid;
}

describe('a BI session that lifted its timeouts and holds a long read', () => {
  it('holds up no landing, sync, partition, retention or migration of envdata', async () => {
    await syncAt(fx, new Date('2025-01-31T02:20:00Z'));
    expect(await snapshotPartitions(fx.app.db)).toEqual(TABLES.map((t) => `${t}_m2025_01`));

    bi = await holdLongRead();
    const biPid = await pidOf(bi);
    expect(await readLocks(fx.app.db, biPid)).toEqual([
      'pollen_snapshot',
      'weather_hourly',
      'weather_snapshot',
    ]);

    // The migration gives up behind the read (bounded), while the sync lands into the very
    // table it waits for: the sync is never queued behind it.
    const migrating = migrateToLatest(fx.app.db, fx.app.logger, new WithTestMigration(), {
      lockWaitMs: 6_000,
    }).then(
      () => 'applied',
      (error: unknown) => error,
    );
    // The first sync of February: its snapshots need February's partitions.
    await syncAt(fx, new Date('2025-02-01T02:20:00Z'));
    // A fetch in March, the next month's partitions: created while the read holds.
    await ensureMonthPartitions(fx.app.db, [...TABLES], new Date('2025-03-01T00:00:00Z'));
    expect(await snapshotPartitions(fx.app.db)).toEqual(
      TABLES.flatMap((t) => ['2025_01', '2025_02', '2025_03'].map((m) => `${t}_m${m}`)),
    );

    // Retention would drop January, which the read holds: it gives up rather than wait.
    const retention = await dropExpiredSnapshots(
      fx.app.db,
      30 * 86_400_000,
      new Date('2025-03-15T00:00:00Z'),
    ).then(
      () => 'dropped',
      (error: unknown) => error,
    );
    expect(hasSqlState(retention, SQLSTATE.lockNotAvailable)).toBe(true);

    const migration = await migrating;
    expect(migration).toBeInstanceOf(EnvdataError);
    expect((migration as EnvdataError).code).toBe('MIGRATION_FAILED');
    expect((migration as EnvdataError).message).toContain(`session ${biPid} (${ROLE}`);
    const { rows: column } = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.columns
      where table_schema = 'envdata' and table_name = 'weather_hourly'
        and column_name = 'bi_reader_test'`.execute(fx.app.db);
    expect(column[0]!.n).toBe(0);

    // The read is still open: the writes went on beside it, nothing ended it.
    expect(await readLocks(fx.app.db, biPid)).toEqual([
      'pollen_snapshot',
      'weather_hourly',
      'weather_snapshot',
    ]);
    await bi.query('commit');
    await bi.end();
    bi = undefined;

    // Once it has ended, what gave up goes through.
    expect(
      await dropExpiredSnapshots(fx.app.db, 30 * 86_400_000, new Date('2025-03-15T00:00:00Z')),
    ).toEqual(TABLES.map((t) => `${t}_m2025_01`));
    expect(
      (await migrateToLatest(fx.app.db, fx.app.logger, new WithTestMigration())).applied,
    ).toEqual([TEST_MIGRATION]);
  }, 120_000);
});
