import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/**
 * Per location and dataset, where what the ledger knows ends: the end of the last hour that
 * landed, was answered "no data" or is recorded as a hole. A sync starts from there (minus its
 * lookback). Keyed `locationId:dataset`; absent when nothing is known.
 */
export async function coverageEnds(
  db: Kysely<Database>,
  locationIds: readonly number[],
): Promise<Map<string, Date>> {
  const { rows } = await sql<{ location_id: number; dataset: Dataset; last_to: Date | null }>`
    select c.location_id, c.dataset, greatest(upper(c.landed), upper(c.no_data),
      (select max(upper(h.hours)) from envdata.coverage_hole h
        where h.location_id = c.location_id and h.dataset = c.dataset)) as last_to
    from envdata.coverage c
    where c.location_id = any(${[...locationIds]}::int[])`.execute(db);
  const ends = new Map<string, Date>();
  for (const r of rows) if (r.last_to) ends.set(`${r.location_id}:${r.dataset}`, r.last_to);
  return ends;
}
