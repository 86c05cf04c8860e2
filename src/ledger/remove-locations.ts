import { sql, type Kysely } from 'kysely';
import { DATASET_DEFINITIONS } from '../datasets/registry.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { toLocation } from '../locations/insert-location.js';
import type { Location } from '../locations/location.js';
import type { Database } from '../warehouse/schema.js';
import { openRunsOfLocations } from './open-runs-of-locations.js';

/** What happened to one location. */
export interface RemovedLocation {
  readonly location: Location;
  /** Hourly fact rows it has (every fact table): kept when retired, gone when purged. */
  readonly facts: number;
  /** Retiring a location that was already retired changes nothing. */
  readonly alreadyRetired: boolean;
}

/**
 * Retires locations: the rows and every fact stay (history remains queryable, in `analytics`
 * too), but `resolveLocations` leaves them out of new backfills and syncs. Chunks already planned
 * in a running run still finish. Idempotent; `restoreLocations` undoes it.
 */
export async function retireLocations(
  db: Kysely<Database>,
  locations: readonly Location[],
): Promise<RemovedLocation[]> {
  if (locations.length === 0) return [];
  const ids = locations.map((l) => l.locationId);
  const updated = await db
    .updateTable('location')
    .set({ retired_at: sql`now()` })
    .where('location_id', 'in', ids)
    .where('retired_at', 'is', null)
    .returningAll()
    .execute();
  const facts = await countFacts(db, ids);
  return locations.map((l) => {
    const row = updated.find((u) => u.location_id === l.locationId);
    return {
      location: row ? toLocation(row) : l,
      facts: facts.get(l.locationId) ?? 0,
      alreadyRetired: row === undefined,
    };
  });
}

/** Makes retired locations active again: new backfills and syncs include them. */
export async function restoreLocations(
  db: Kysely<Database>,
  locations: readonly Location[],
): Promise<Location[]> {
  if (locations.length === 0) return [];
  const rows = await db
    .updateTable('location')
    .set({ retired_at: null })
    .where(
      'location_id',
      'in',
      locations.map((l) => l.locationId),
    )
    .returningAll()
    .execute();
  return rows.map(toLocation).sort((a, b) => a.locationId - b.locationId);
}

/**
 * Deletes locations with everything that belongs to them: facts, snapshots, rollups, ledger
 * chunks, quarantine and raw payloads (all `on delete cascade`), in one transaction. Refused with
 * a `CONFLICT` while a running run still has open chunks for one of them: the workers would lose
 * the rows under their feet.
 */
export async function purgeLocations(
  db: Kysely<Database>,
  locations: readonly Location[],
): Promise<RemovedLocation[]> {
  if (locations.length === 0) return [];
  const ids = locations.map((l) => l.locationId);
  return db.transaction().execute(async (trx) => {
    // Lock the rows first: a run planned meanwhile cannot add chunks for them (its foreign key
    // check waits for this lock, then finds them gone).
    await trx
      .selectFrom('location')
      .select('location_id')
      .where('location_id', 'in', ids)
      .forUpdate()
      .execute();
    const open = await openRunsOfLocations(trx, ids);
    if (open.length > 0) {
      throw new EnvdataError(
        'CONFLICT',
        `cannot purge while run(s) ${open.map((o) => `${o.run_id} (${o.chunks} open chunk(s))`).join(', ')} ` +
          'still work on these locations: wait for them to finish (`envdata status`), or remove without --purge',
        { details: { runs: open.map((o) => o.run_id) } },
      );
    }
    const facts = await countFacts(trx, ids);
    await trx.deleteFrom('location').where('location_id', 'in', ids).execute();
    return locations.map((location) => ({
      location,
      facts: facts.get(location.locationId) ?? 0,
      alreadyRetired: location.retiredAt !== null,
    }));
  });
}

/** Hourly fact rows per location, in every dataset's fact tables. */
export async function countFacts(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<Map<number, number>> {
  const counts = DATASET_DEFINITIONS.flatMap((d) => d.factTables).map(
    ({ name }) => sql`
      select location_id, count(*) as n from ${sql.table(`envdata.${name}`)}
        where location_id = any(${ids}::int[]) group by location_id`,
  );
  const { rows } = await sql<{ location_id: number; n: number }>`
    select location_id, sum(n)::int as n from (${sql.join(counts, sql` union all `)}) counts
    group by location_id`.execute(db);
  return new Map(rows.map((r) => [r.location_id, r.n]));
}
