import { sql, type RawBuilder } from 'kysely';
import { ArrayLiteral } from './wire/index.js';
import type { FactRow } from './fact-rows.js';
import type { LocatedRows } from './located-rows.js';

/** Where a batch's rows may already be stored; see `storedRanges`. */
export interface StoredRanges {
  /** `unnest(…) with ordinality as g(location_id, first_at, last_at, i)`: one row per group. */
  readonly ranges: RawBuilder<unknown>;
  /** `between … and …`: the whole batch's span, as constants. */
  readonly span: RawBuilder<unknown>;
}

/**
 * Where a batch's rows may already be stored: per group, its location and first and last hour
 * (`g.i` is the group's 1-based position in `groups`), and the whole batch's span as constants
 * (`between …`), which let the planner prune the yearly partitions instead of planning a scan
 * of each (that took longer than running the statement for a batch of weather). Groups must not
 * be empty.
 */
export function storedRanges(groups: readonly LocatedRows<FactRow>[]): StoredRanges {
  const locationIds = new ArrayLiteral();
  const firstAt = new ArrayLiteral();
  const lastAt = new ArrayLiteral();
  let min = Infinity;
  let max = -Infinity;
  for (const { locationId, rows } of groups) {
    let first = Infinity;
    let last = -Infinity;
    for (const { observedAt } of rows) {
      const t = observedAt.getTime();
      if (t < first) first = t;
      if (t > last) last = t;
    }
    locationIds.number(locationId);
    firstAt.number(first / 1_000);
    lastAt.number(last / 1_000);
    min = Math.min(min, first);
    max = Math.max(max, last);
  }
  return {
    ranges: sql`unnest(${locationIds.build()}::int[], ${firstAt.build()}::float8[],
      ${lastAt.build()}::float8[]) with ordinality as g(location_id, first_at, last_at, i)`,
    span: sql`between to_timestamp(${min / 1_000}::float8) and to_timestamp(${max / 1_000}::float8)`,
  };
}

/**
 * The stored rows of group `g` (`alias.location_id = g.location_id and alias.observed_at …`):
 * one index range scan per group, within the batch's partitions.
 */
export function inStoredRange(alias: string, stored: StoredRanges): RawBuilder<unknown> {
  const s = sql.raw(alias);
  return sql`${s}.location_id = g.location_id
    and ${s}.observed_at between to_timestamp(g.first_at) and to_timestamp(g.last_at)
    and ${s}.observed_at ${stored.span}`;
}
