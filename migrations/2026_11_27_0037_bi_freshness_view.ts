import { sql, type Kysely } from 'kysely';
import {
  ANALYTICS_COLUMNS as BEFORE,
  type AnalyticsView,
} from './2026_11_27_0034_analytics_column_comments.js';

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * `analytics.dataset_freshness`: per dataset, the hour through which every active location's
 * history is complete, for freshness checks that `envdata_bi` may run (dbt's `loaded_at_query`).
 *
 * A location's known hours are those that landed, were answered "no data", or are recorded as a
 * hole of any cause (`envdata.coverage`, `envdata.coverage_hole`): the ledger has an answer for
 * each. Its history is complete through the last hour of the first unbroken run of known hours,
 * from its own first known hour on. So a hole not yet asked for (a failed chunk, a missed sync)
 * holds the date back even when newer hours landed after it; the newest row alone would not.
 * Each location counts from its own first hour, not from the dataset's history start: a
 * warehouse backfilled from a later start would otherwise never be complete.
 *
 * Retired locations are left out (nothing asks for their hours any more). One row per dataset,
 * even with no location: `complete_through` is null while some active location has no known
 * hour, which a freshness check reads as stale. Cheap: one coverage row and the holes of one
 * location and dataset (by `coverage_hole_key`) per location.
 *
 * Frozen in time: plain SQL, no app imports.
 */
const DATASET_FRESHNESS: AnalyticsView = {
  view: 'analytics.dataset_freshness',
  columns: [
    {
      name: 'dataset',
      type: 'text',
      nullable: false,
      meaning: 'pollen or weather: one row each',
    },
    {
      name: 'complete_through',
      type: 'timestamptz',
      nullable: true,
      meaning:
        'start of the last hour through which every active location has an answer for every hour (rows landed, "no data", or a recorded hole), counted from its own first known hour, no later than the last complete hour; null while some active location has no known hour',
    },
    {
      name: 'locations',
      type: 'integer',
      nullable: false,
      meaning: 'how many active (not retired) locations were counted',
    },
  ],
};

/**
 * The meaning of every column of every `analytics` view once this migration ran (see
 * src/warehouse/analytics-columns.ts): 0034's, and this view's.
 */
export const ANALYTICS_COLUMNS: readonly AnalyticsView[] = [...BEFORE, DATASET_FRESHNESS];

export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `
    create view analytics.dataset_freshness as
    select d.dataset::text as dataset, f.complete_through, f.locations
    from unnest(enum_range(null::envdata.dataset)) as d(dataset)
    cross join lateral (
      select case when bool_and(k.known_until is not null)
          then least(min(k.known_until), date_trunc('hour', now())) - interval '1 hour'
        end as complete_through,
        count(*)::integer as locations
      from envdata.location l
      left join envdata.coverage c on c.location_id = l.location_id and c.dataset = d.dataset
      left join lateral (
        -- the end of the first unbroken run of known hours
        select upper(r) as known_until
        from unnest(coalesce(c.landed, '{}') + coalesce(c.no_data, '{}') + coalesce((
            select range_agg(h.hours) from envdata.coverage_hole h
            where h.location_id = l.location_id and h.dataset = d.dataset), '{}')) as r
        order by r
        limit 1
      ) k on true
      where l.retired_at is null
    ) f;
    grant select on analytics.dataset_freshness to envdata_bi;
    comment on view analytics.dataset_freshness is ${literal(
      'Per dataset, the hour through which the history of every active location is complete (a hole not yet fetched holds it back, however new the rows after it): what freshness checks read, e.g. dbt loaded_at_query.',
    )};
    ${DATASET_FRESHNESS.columns
      .map(
        ({ name, meaning }) =>
          `comment on column analytics.dataset_freshness.${name} is ${literal(meaning)};`,
      )
      .join('\n')}`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view analytics.dataset_freshness`.execute(db);
}
