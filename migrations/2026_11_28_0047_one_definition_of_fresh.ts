import { sql, type Kysely } from 'kysely';
import type {
  AnalyticsColumn,
  AnalyticsView,
} from './2026_11_27_0034_analytics_column_comments.js';
import { ANALYTICS_COLUMNS as BEFORE } from './2026_11_27_0039_latest_stamped_at_fetch.js';

/** `text` as a SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

const VIEW = 'analytics.dataset_freshness';

const column = (
  name: string,
  type: string,
  nullable: boolean,
  meaning: string,
): AnalyticsColumn => ({ name, type, nullable, meaning });

/**
 * `analytics.dataset_freshness` with the one definition of fresh (issue 38): what `envdata
 * status`, the console's Freshness page and `envdata status --check` measure.
 *
 * A location is as fresh as its newest landed hour (for a location the service knows no data
 * for, its newest "no data" answer); its lag is the time from the end of that hour to now. A
 * dataset is as fresh as its least fresh active location. A hole in the past (a cancelled
 * backfill's, a failed chunk's) no longer makes the dataset look decades old: it is a hole in
 * the history, not staleness. 0037 counted the history up to its first hole, so after one
 * cancelled backfill every dbt freshness check said the data was 30 years old while `status` said
 * none was stale.
 *
 * Existing columns keep their names and types; `complete_through` takes the shared meaning. New
 * columns at the end name what holds the dataset back and what to run: the least fresh location,
 * its hours missing up to now, the command; and, apart, the history's first hole (0037's measure,
 * `history_complete_through`), its location, hours and command. A hole that an unfinished run
 * still covers names that run (`envdata resume`, `envdata retry`, or nothing to run while it
 * fetches); otherwise the command is a sync (hours up to now) or a backfill of that location
 * and range.
 *
 * Frozen in time: plain SQL, no app imports.
 */
const DATASET_FRESHNESS: AnalyticsView = {
  view: VIEW,
  columns: [
    column('dataset', 'text', false, 'pollen or weather: one row each'),
    column(
      'complete_through',
      'timestamptz',
      true,
      'start of the newest hour that every active location has landed (a location the service has only "no data" answers for: its newest answer), no later than the last complete hour: the hour of the least fresh location, as envdata status and the console count it; an older hole in the history does not hold it back (see history_complete_through); null while some active location has nothing',
    ),
    column('locations', 'integer', false, 'how many active (not retired) locations were counted'),
    column(
      'lag_hours',
      'double precision',
      true,
      'hours from the end of complete_through to now: the lag of the least fresh location, the same number envdata status shows and compares with ENVDATA_FRESHNESS_MAX_LAG (36 h by default, what dbt warns after); null while some active location has nothing',
    ),
    column(
      'worst_location',
      'text',
      true,
      'name of the least fresh active location (one that has nothing first, then the oldest newest hour; ties by name): the one that sets complete_through; null without locations',
    ),
    column(
      'hole_from',
      'timestamptz',
      true,
      'start of the first hour worst_location lacks up to now (the end of its newest hour); null when it has nothing at all or lacks no complete hour',
    ),
    column(
      'hole_to',
      'timestamptz',
      true,
      'end of the hours worst_location lacks: the end of the last complete hour; null when it lacks no complete hour',
    ),
    column(
      'clear_with',
      'text',
      true,
      'what to run to bring worst_location up to now, e.g. "envdata sync --now --wait"; "envdata resume N" or "envdata retry N" when run N holds those hours, or what to wait for; null when it lacks no complete hour',
    ),
    column(
      'history_complete_through',
      'timestamptz',
      true,
      'start of the last hour through which every active location has an answer for every hour (rows landed, "no data", or a recorded hole), counted from its own first known hour, no later than the last complete hour: a hole in the past (a cancelled backfill, a failed chunk) holds it back; null while some active location has no known hour',
    ),
    column(
      'history_hole_location',
      'text',
      true,
      'name of the active location whose first hole in the history is the oldest (ties by name); null when no location has a hole before its newest known hour',
    ),
    column(
      'history_hole_from',
      'timestamptz',
      true,
      'start of that hole: the first hour of history_hole_location with no answer after its first known hours',
    ),
    column(
      'history_hole_to',
      'timestamptz',
      true,
      'end of that hole: the start of the next hour with an answer',
    ),
    column(
      'history_clear_with',
      'text',
      true,
      'what to run to fill that hole, e.g. envdata backfill --dataset weather --location Berlin --from 2024-01-01 --to 2024-02-01; "envdata resume N" or "envdata retry N" when run N holds those hours, or what to wait for',
    ),
  ],
};

/**
 * The meaning of every column of every `analytics` view once this migration ran (see
 * src/warehouse/analytics-columns.ts): 0039's, with dataset_freshness's as above.
 */
export const ANALYTICS_COLUMNS: readonly AnalyticsView[] = BEFORE.map((v) =>
  v.view === VIEW ? DATASET_FRESHNESS : v,
);

/** An hour as `backfill --from`/`--to` take it: `2024-06-01`, or `"2024-06-01 13:00:00"`. */
function hourOption(hour: string): string {
  return `case when ${hour} = date_trunc('day', ${hour}, 'UTC')
      then to_char(${hour} at time zone 'UTC', 'YYYY-MM-DD')
      else '"' || to_char(${hour} at time zone 'UTC', 'YYYY-MM-DD HH24:00:00') || '"' end`;
}

/**
 * The command that fills the hours [`from`, `to`) of location `id` in `dataset`: the
 * unfinished run that holds some of them first (its oldest open chunk there), else `otherwise`.
 */
function clearWith(id: string, dataset: string, from: string, to: string, otherwise: string) {
  return `coalesce((
      select case
          when ch.status = 'failed' then 'envdata retry ' || ch.run_id
          when r.status in ('paused', 'stopped') then 'envdata resume ' || ch.run_id
          else 'nothing to run: run ' || ch.run_id || ' is fetching these hours (envdata status ' || ch.run_id || ')'
        end
      from envdata.chunk ch
      join envdata.run r on r.run_id = ch.run_id
      where ch.location_id = ${id} and ch.dataset = ${dataset}
        and ch.status not in ('done', 'split')
        and ch.window_from < ${to} and ch.window_to > ${from}
        and (ch.status = 'failed' or r.status in ('planning', 'running', 'paused', 'stopped'))
      order by ch.window_from, ch.chunk_id
      limit 1), ${otherwise})`;
}

/** A location's name as one shell word. */
function shellWord(name: string): string {
  return `case when ${name} ~ '^[A-Za-z0-9_.,:/@+-]+$' then ${name}
      else '"' || replace(replace(replace(${name}, '\\', '\\\\'), '"', '\\"'), '$', '\\$') || '"' end`;
}

export async function up(db: Kysely<any>): Promise<void> {
  const backfill = `'envdata backfill --dataset ' || d.dataset::text || ' --location ' || ${shellWord(
    'hh.name',
  )} || ' --from ' || ${hourOption('hh.known_until')} || ' --to ' || ${hourOption('hh.next_known')}`;
  await sql
    .raw(
      `
    create or replace view analytics.dataset_freshness as
    with per_location as (
      select d.dataset, l.location_id, l.name,
        -- as envdata status counts it: the end of the newest landed hour, or of the newest "no
        -- data" answer when nothing landed and every hole is such an answer
        case when upper(c.landed) is null and h.answered_to is not null
            and not coalesce(h.other_holes, false)
          then h.answered_to else upper(c.landed) end as fresh_until,
        k.known_until, k.next_known
      from unnest(enum_range(null::envdata.dataset)) as d(dataset)
      cross join envdata.location l
      left join envdata.coverage c on c.location_id = l.location_id and c.dataset = d.dataset
      left join lateral (
        select max(upper(x.hours)) filter (where x.cause in ('no_data', 'not_covered'))
            as answered_to,
          bool_or(x.cause not in ('no_data', 'not_covered')) as other_holes,
          range_agg(x.hours) as holes
        from envdata.coverage_hole x
        where x.location_id = l.location_id and x.dataset = d.dataset
      ) h on true
      left join lateral (
        -- the end of the first unbroken run of known hours, and the start of the next (unnest
        -- gives a multirange's ranges in ascending order)
        select max(upper(u.r)) filter (where u.i = 1) as known_until,
          max(lower(u.r)) filter (where u.i = 2) as next_known
        from unnest(coalesce(c.landed, '{}') + coalesce(c.no_data, '{}')
          + coalesce(h.holes, '{}')) with ordinality as u(r, i)
        where u.i <= 2
      ) k on true
      where l.retired_at is null
    )
    select d.dataset::text as dataset, f.complete_through, f.locations,
      f.lag_hours,
      w.name as worst_location,
      case when w.lacking then w.fresh_until end as hole_from,
      case when w.lacking then date_trunc('hour', now()) end as hole_to,
      case when w.lacking then ${clearWith(
        'w.location_id',
        'd.dataset',
        "coalesce(w.fresh_until, '-infinity')",
        "date_trunc('hour', now())",
        "'envdata sync --now --wait'",
      )} end as clear_with,
      f.history_complete_through,
      hh.name as history_hole_location,
      hh.known_until as history_hole_from,
      hh.next_known as history_hole_to,
      case when hh.location_id is not null then ${clearWith(
        'hh.location_id',
        'd.dataset',
        'hh.known_until',
        'hh.next_known',
        backfill,
      )} end as history_clear_with
    from unnest(enum_range(null::envdata.dataset)) as d(dataset)
    cross join lateral (
      select case when bool_and(p.fresh_until is not null)
          then least(min(p.fresh_until), date_trunc('hour', now())) - interval '1 hour'
        end as complete_through,
        count(*)::integer as locations,
        case when bool_and(p.fresh_until is not null)
          then greatest(0, extract(epoch from now() - min(p.fresh_until)) / 3600)::double precision
        end as lag_hours,
        case when bool_and(p.known_until is not null)
          then least(min(p.known_until), date_trunc('hour', now())) - interval '1 hour'
        end as history_complete_through
      from per_location p
      where p.dataset = d.dataset
    ) f
    left join lateral (
      select p.location_id, p.name, p.fresh_until,
        p.fresh_until is null or p.fresh_until < date_trunc('hour', now()) as lacking
      from per_location p
      where p.dataset = d.dataset
      order by p.fresh_until nulls first, p.name, p.location_id
      limit 1
    ) w on true
    left join lateral (
      select p.location_id, p.name, p.known_until, p.next_known
      from per_location p
      where p.dataset = d.dataset and p.next_known is not null
      order by p.known_until, p.name, p.location_id
      limit 1
    ) hh on true;
    comment on view analytics.dataset_freshness is ${literal(
      'Per dataset, how fresh it is as envdata status counts it: the newest hour every active location has landed, the lag of the least fresh location, which location that is, the hours it lacks and what to run (what freshness checks read, e.g. dbt loaded_at_query). Apart, the history: the hour through which every location has an answer for every hour, and the oldest hole that holds it back, with what to run to fill it.',
    )};
    ${DATASET_FRESHNESS.columns
      .map(({ name, meaning }) => `comment on column ${VIEW}.${name} is ${literal(meaning)};`)
      .join('\n')}`,
    )
    .execute(db);
}

/** Back to 0037's view: a replaced view cannot lose columns, so it is dropped and made again. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop view analytics.dataset_freshness`.execute(db);
  const { up: before } = await import('./2026_11_27_0037_bi_freshness_view.js');
  await before(db);
}
