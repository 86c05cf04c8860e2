import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/**
 * The first hour of history the warehouse holds or means to hold, by dataset: the earliest
 * hour landed, answered "no data" or missing upstream, or in a gap of a run that was not
 * cancelled. `envdata export-config` writes it as the dataset's `since` of a warehouse no
 * declared file was applied to. A dataset never planned is absent.
 */
export async function earliestHistory(db: Kysely<Database>): Promise<Map<Dataset, Date>> {
  const { rows } = await sql<{ dataset: Dataset; since: Date }>`
    select dataset, min(since) as since from (
      select dataset, lower(landed) as since from envdata.coverage where not isempty(landed)
      union all
      select dataset, lower(hours) from envdata.coverage_hole
      union all
      select g.dataset, g.gap_from from envdata.run_gap g
        join envdata.run r using (run_id) where r.status <> 'cancelled'
    ) earliest
    where since is not null
    group by dataset`.execute(db);
  return new Map(rows.map((r) => [r.dataset, new Date(r.since)]));
}
