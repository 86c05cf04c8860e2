import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

export interface Freshness {
  readonly locationId: number;
  readonly name: string;
  readonly dataset: Dataset;
  /** The last hour whose rows landed; `null` when nothing was ingested. */
  readonly lastHour: Date | null;
  /** Hours from the end of that hour to `now`; `null` when nothing was ingested. */
  readonly lagHours: number | null;
  readonly stale: boolean;
}

/**
 * Per active location and dataset: the last hour that landed (from the coverage), the lag and
 * whether it is stale. Retired locations are left out: nobody keeps them fresh.
 */
export async function readFreshness(
  db: Kysely<Database>,
  maxLagHours: number,
  now: Date = new Date(),
): Promise<Freshness[]> {
  const { rows } = await sql<{
    location_id: number;
    name: string;
    dataset: Dataset;
    last_to: Date | null;
  }>`
    select l.location_id, l.name, d.dataset, upper(c.landed) as last_to
    from envdata.location l
    cross join unnest(enum_range(null::envdata.dataset)) as d(dataset)
    left join envdata.coverage c on c.location_id = l.location_id and c.dataset = d.dataset
    where l.retired_at is null
    order by l.location_id, d.dataset`.execute(db);
  return rows.map((r) => {
    const lagHours =
      r.last_to === null ? null : Math.max(0, (now.getTime() - r.last_to.getTime()) / 3_600_000);
    return {
      locationId: r.location_id,
      name: r.name,
      dataset: r.dataset,
      lastHour: r.last_to === null ? null : new Date(r.last_to.getTime() - 3_600_000),
      lagHours,
      stale: lagHours === null || lagHours > maxLagHours,
    };
  });
}
