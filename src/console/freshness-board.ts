import type { Kysely } from 'kysely';
import { readFreshness, type Freshness } from '../ledger/read-freshness.js';
import type { Database } from '../warehouse/schema.js';

/** The console's Freshness page: every active location's lag per dataset, stale ones first. */
export interface FreshnessBoard {
  /** ENVDATA_FRESHNESS_MAX_LAG. */
  readonly maxLagHours: number;
  readonly stale: number;
  readonly rows: readonly Freshness[];
}

/**
 * `readFreshness` (what `envdata status` lists), ordered for an operator: stale first, the
 * never-ingested before the rest, then the longest lag, then by name.
 */
export async function freshnessBoard(
  db: Kysely<Database>,
  maxLagHours: number,
): Promise<FreshnessBoard> {
  const rows = await readFreshness(db, maxLagHours);
  const lag = (f: Freshness) => f.lagHours ?? Number.POSITIVE_INFINITY;
  rows.sort(
    (a, b) =>
      Number(b.stale) - Number(a.stale) ||
      lag(b) - lag(a) ||
      a.name.localeCompare(b.name) ||
      a.dataset.localeCompare(b.dataset),
  );
  return { maxLagHours, stale: rows.filter((f) => f.stale).length, rows };
}
