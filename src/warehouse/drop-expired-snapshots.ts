import { sql, type Kysely } from 'kysely';
import { limitDdlLockWait } from './ddl-lock-timeout.js';
import type { MonthPartitionedTable } from './month-partitions.js';
import { refreshDailyRollups } from './refresh-daily-rollups.js';
import type { Database } from './schema.js';

/** A monthly partition of a snapshot table (`pollen_snapshot_m2025_01`). */
interface SnapshotPartition {
  readonly partition: string;
  readonly parent: MonthPartitionedTable;
}

/** The snapshot tables the forecast-accuracy rollup is summed from. */
const ACCURACY_SOURCES: readonly MonthPartitionedTable[] = ['pollen_snapshot', 'weather_snapshot'];

/**
 * Drops the monthly partitions of the snapshot tables whose every fetch is older than
 * `retentionMs` before `now` (ENVDATA_SNAPSHOT_RETENTION): whole months, never a delete of some
 * rows. Returns the partitions dropped, none when nothing is that old or another process is at
 * it.
 *
 * In one transaction: the dirty days are refreshed first, so the forecast-accuracy rollup has
 * summed every forecast about to go; then `envdata.snapshot_retention.settled_before` moves past
 * the last hour those forecasts were about, so no later refresh sums those days again from what
 * is left (migration 0036); then the partitions go. Dropping one locks its parent table ACCESS
 * EXCLUSIVE, which waits for every reader of it: after `DDL_LOCK_TIMEOUT_MS` it gives up (55P03,
 * everything rolled back, tried again on the next pass) rather than queue every store of a
 * snapshot behind a long report reading the analytics views.
 */
export async function dropExpiredSnapshots(
  db: Kysely<Database>,
  retentionMs: number,
  now: Date = new Date(),
): Promise<string[]> {
  const cutoff = new Date(now.getTime() - retentionMs);
  if ((await expiredPartitions(db, cutoff)).length === 0) return [];
  return db.transaction().execute(async (trx) => {
    const { rows: lock } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(hashtext('envdata.snapshot_retention')) as locked`.execute(
      trx,
    );
    if (!lock[0]?.locked) return [];
    const expired = await expiredPartitions(trx, cutoff);
    if (expired.length === 0) return [];
    await refreshDailyRollups(trx);
    await settle(trx, expired);
    await limitDdlLockWait(trx);
    for (const { partition } of expired) {
      await sql`drop table ${sql.table(`envdata.${partition}`)}`.execute(trx);
    }
    return expired.map((p) => p.partition);
  });
}

/** The partitions whose upper bound is at or before `cutoff`: all their rows are older. */
async function expiredPartitions(db: Kysely<Database>, cutoff: Date): Promise<SnapshotPartition[]> {
  const { rows } = await sql<SnapshotPartition>`
    select c.relname as partition, p.relname as parent
    from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    join pg_class p on p.oid = i.inhparent
    join pg_namespace n on n.oid = p.relnamespace
    where n.nspname = 'envdata'
      and p.relname in ('pollen_snapshot', 'pollen_species_snapshot', 'weather_snapshot')
      and (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz
        <= ${cutoff}
    order by c.relname`.execute(db);
  return rows;
}

/** Marks the rollup's days up to the last hour forecast in `partitions` as settled. */
async function settle(
  db: Kysely<Database>,
  partitions: readonly SnapshotPartition[],
): Promise<void> {
  const sources = partitions.filter((p) => ACCURACY_SOURCES.includes(p.parent));
  if (sources.length === 0) return;
  const lastHours = sql.join(
    sources.map(
      (p) =>
        sql`select max(valid_at) as valid_at from ${sql.table(`envdata.${p.partition}`)} where product <> 'latest'`,
    ),
    sql` union all `,
  );
  await sql`
    insert into envdata.snapshot_retention (settled_before)
    select max(valid_at) + interval '1 hour' from (${lastHours}) f having max(valid_at) is not null
    on conflict (singleton) do update
      set settled_before = greatest(snapshot_retention.settled_before, excluded.settled_before)`.execute(
    db,
  );
}
