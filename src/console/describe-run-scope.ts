import { sql, type Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { costOf, formatMoney } from '../config/money.js';
import type { Database } from '../warehouse/schema.js';

/** What a run was asked to do, for the console's run page: its datasets, range, locations, cost. */
export interface RunScope {
  readonly datasets: readonly string[];
  /** ISO 8601 start of the range asked for (a sync: its look-back), `null` when not recorded. */
  readonly from: string | null;
  /** ISO 8601 end of the range asked for, `null` when not recorded. */
  readonly to: string | null;
  /** How many locations the run covers. */
  readonly locations: number;
  /** The first few of their names, in id order. */
  readonly locationNames: readonly string[];
  /** The run's calls at ENVDATA_PRICE_PER_CALL, formatted (`€1.20`); `null` without a price. */
  readonly cost: string | null;
}

const NAMES_SHOWN = 5;

/**
 * The scope of run `runId` from what it recorded when it was planned (`envdata.run.request`):
 * `undefined` if there is no such run. `calls` is the run's count of calls sent (the run page's
 * "Calls"), priced as `status` prices them.
 */
export async function describeRunScope(
  db: Kysely<Database>,
  config: Pick<Config, 'money'>,
  runId: number,
  calls: number,
): Promise<RunScope | undefined> {
  const { rows } = await sql<{
    datasets: string[] | null;
    from: string | null;
    to: string | null;
    locations: number;
    names: string[];
  }>`
    select array(select jsonb_array_elements_text(r.request->'datasets')) as datasets,
      r.request->>'from' as from, r.request->>'to' as to,
      coalesce(jsonb_array_length(r.request->'locations'), 0)::int as locations,
      array(select l.name from envdata.location l
        where l.location_id in (select x::int from jsonb_array_elements_text(
          coalesce(r.request->'locations', '[]'::jsonb)) x)
        order by l.location_id limit ${NAMES_SHOWN}) as names
    from envdata.run r where r.run_id = ${runId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const { price } = config.money;
  return {
    datasets: row.datasets ?? [],
    from: row.from,
    to: row.to,
    locations: row.locations,
    locationNames: row.names,
    cost: price ? formatMoney(costOf(calls, price)) : null,
  };
}
