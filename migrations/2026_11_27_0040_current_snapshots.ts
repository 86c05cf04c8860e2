import { sql, type Kysely } from 'kysely';
import { latestViews, weatherValues } from './2026_11_27_0039_latest_stamped_at_fetch.js';

/**
 * The snapshot tables and their copies of each location's newest fetch: their keys, and their
 * enum columns, which the copies keep as the text the views show.
 */
const COPIES = [
  {
    dataset: 'pollen',
    table: 'pollen_snapshot',
    key: 'product, location_id, valid_at, pollen_type',
    enums: ['product', 'pollen_type', 'risk_level'],
  },
  {
    dataset: 'pollen',
    table: 'pollen_species_snapshot',
    key: 'product, location_id, valid_at, species_id',
    enums: ['product', 'risk_level'],
  },
  {
    dataset: 'weather',
    table: 'weather_snapshot',
    key: 'product, location_id, valid_at',
    enums: ['product', 'icon'],
  },
] as const;

/**
 * The forecast views' columns before their values, with the same names and types as 0033's:
 * the local hour and the lead as the copy keeps them.
 */
const FORECAST_HEAD = `l.location_id, l.name as location_name, s.product,
      s.fetched_at, s.valid_at, s.valid_at_local, s.lead_hours`;

/**
 * Each location's newest snapshot of each product, kept apart from the history of snapshots, so
 * the forecast and latest views read 1,000 locations' current rows, not a year of them:
 *
 * - `envdata.current_fetch`: per location, dataset and product, the `fetched_at` of the newest
 *   snapshot stored. `envdata.advance_current_snapshot(…)`, called by every store of a snapshot
 *   in its transaction, moves it forward, never back: a late retry of an older sync's snapshot
 *   leaves the newer one current. Its row lock orders two stores of one product.
 * - `envdata.pollen_snapshot_current`, `pollen_species_snapshot_current`,
 *   `weather_snapshot_current`: that snapshot's rows as the views show them. Their table's
 *   columns (`like`; a test holds them equal), its enums as text, and two more the views would
 *   otherwise compute on every row of every read: `valid_at_local` (in the location's time zone,
 *   kept right by a trigger when a location's zone changes) and `lead_hours`. The views' text
 *   `product` is then a column, not a cast: `where product = 'forecast_120h'` is estimated and
 *   filtered as one (on a cast, the planner guessed 700 rows of 108,000 and sorted on disk).
 *   Keyed by product first: one product's rows of every location are one range. Statistics on
 *   the local date let the planner count a per-day query's groups (the five-day risk per city:
 *   18,000 groups, not 108,000 guessed) and hash them instead of sorting every row on disk. When a
 *   product's newest snapshot changes, every table of its dataset is replaced: the species
 *   forecast shown is always that of the same fetch as the types'. The rows are copied by
 *   `envdata.copy_current_rows(table, …)`, which reads the snapshot table's columns from the
 *   catalog: a column added to both later is copied too.
 * - `envdata.rebuild_current_snapshots()`: fills all of it from the snapshot tables (this
 *   migration, and a warehouse filled by hand).
 *
 * `analytics.pollen_forecast`, `pollen_species_forecast`, `weather_forecast`, `pollen_latest`
 * and `weather_latest` now read the copies: the same columns, rows and values (`create or
 * replace`: their grants and comments stay). Before, each read every location's newest fetch
 * through the snapshot table's primary key, one probe per monthly partition (0036), location and
 * product, and converted every row's hour to local time: with a year of nightly forecasts for
 * 1,000 locations, every location's 120-hour forecast took 115–210 ms in the server, a third of
 * it the time zones (`npm run bench:warehouse`, F-forecast against F-before). Retention
 * (ENVDATA_SNAPSHOT_RETENTION) drops old months of history; the copies keep the newest.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const copies = COPIES.map(
    ({ table, key, enums }) => `
    create table envdata.${table}_current (like envdata.${table} including defaults including constraints);
    alter table envdata.${table}_current
      ${enums.map((c) => `alter column ${c} type text,`).join('\n      ')}
      add column valid_at_local timestamp not null,
      add column lead_hours integer not null,
      add constraint ${table}_current_pkey primary key (${key}),
      add constraint ${table}_current_location_id_fkey
        foreign key (location_id) references envdata.location on delete cascade;
    create statistics envdata.${table}_current_local_date on ((valid_at_local)::date)
      from envdata.${table}_current;
    comment on table envdata.${table}_current is
      'The rows of envdata.${table} of each location''s current snapshot of each product (envdata.current_fetch), with valid_at_local and lead_hours: kept by envdata.advance_current_snapshot().';`,
  ).join('\n');
  const replace = (dataset: string) =>
    COPIES.filter((c) => c.dataset === dataset)
      .map(
        ({ table }) => `
        delete from envdata.${table}_current c
        where c.product = of_product::text and c.location_id = location;
        perform envdata.copy_current_rows('${table}', of_dataset, location, of_product);`,
      )
      .join('');
  const rebuild = COPIES.map(
    ({ dataset, table }) => `
      delete from envdata.${table}_current;
      copied := copied + envdata.copy_current_rows('${table}', '${dataset}', null, null);`,
  ).join('');
  const newest = (dataset: string) =>
    COPIES.filter((c) => c.dataset === dataset)
      .map(
        ({ table }) => `
          (select n.fetched_at from envdata.${table} n
           where n.location_id = l.location_id and n.product = p.product
           order by n.fetched_at desc limit 1)`,
      )
      .join(',');
  const localTimes = COPIES.map(
    ({ table }) => `
      update envdata.${table}_current set valid_at_local = valid_at at time zone new.timezone
      where location_id = new.location_id;`,
  ).join('');
  await sql
    .raw(
      `
    create table envdata.current_fetch (
      location_id integer not null references envdata.location on delete cascade,
      dataset envdata.dataset not null,
      product envdata.snapshot_product not null,
      fetched_at timestamptz not null,
      primary key (location_id, dataset, product)
    );
    comment on table envdata.current_fetch is
      'Per location, dataset and product, the fetched_at of the newest snapshot stored: the one the forecast and latest views show (copied in envdata.*_snapshot_current).';
    ${copies}

    create function envdata.copy_current_rows(snapshot_table text, of_dataset envdata.dataset,
      location integer, of_product envdata.snapshot_product)
    returns integer language plpgsql as $fn$
    declare
      columns text;
      source_columns text;
      copied integer;
    begin
      select string_agg(quote_ident(a.attname), ', ' order by a.attnum),
        string_agg('s.' || quote_ident(a.attname), ', ' order by a.attnum)
        into columns, source_columns
      from pg_attribute a
      where a.attrelid = format('envdata.%I', snapshot_table)::regclass
        and a.attnum > 0 and not a.attisdropped;
      execute format($sql$
        insert into envdata.%I (%s, valid_at_local, lead_hours)
        select %s, s.valid_at at time zone l.timezone,
          floor(date_part('epoch', s.valid_at - s.fetched_at) / 3600)::integer
        from envdata.current_fetch c
        join envdata.location l on l.location_id = c.location_id
        -- One lookup per current fetch: pulled up, the planner would hash the whole history.
        cross join lateral (
          select n.* from envdata.%I n
          where n.location_id = c.location_id and n.product = c.product
            and n.fetched_at = c.fetched_at
          offset 0
        ) s
        where c.dataset = $1 and ($2 is null or c.location_id = $2)
          and ($3 is null or c.product = $3)$sql$,
        snapshot_table || '_current', columns, source_columns, snapshot_table)
      using of_dataset, location, of_product;
      get diagnostics copied = row_count;
      return copied;
    end
    $fn$;
    comment on function envdata.copy_current_rows(text, envdata.dataset, integer,
      envdata.snapshot_product) is
      'Copies the rows of the dataset''s current fetches (envdata.current_fetch) of one location and product, or of all when null, from envdata.<snapshot_table> into its _current copy. Returns the rows copied.';

    create function envdata.advance_current_snapshot(location integer,
      of_dataset envdata.dataset, of_product envdata.snapshot_product, fetched timestamptz)
    returns boolean language plpgsql as $fn$
    begin
      insert into envdata.current_fetch as c (location_id, dataset, product, fetched_at)
      values (location, of_dataset, of_product, fetched)
      on conflict (location_id, dataset, product) do update set fetched_at = excluded.fetched_at
        where c.fetched_at < excluded.fetched_at;
      if not found then
        return false;
      end if;
      if of_dataset = 'pollen' then${replace('pollen')}
      elsif of_dataset = 'weather' then${replace('weather')}
      end if;
      return true;
    end
    $fn$;
    comment on function envdata.advance_current_snapshot(integer, envdata.dataset,
      envdata.snapshot_product, timestamptz) is
      'Makes the snapshot fetched at fetched the current one of its location, dataset and product unless a newer one is, copying its rows into envdata.*_snapshot_current. Call it in the transaction that stores the snapshot, after its rows. True when it became current.';

    create function envdata.rebuild_current_snapshots() returns integer
    language plpgsql as $fn$
    declare
      copied integer := 0;
    begin
      delete from envdata.current_fetch;
      insert into envdata.current_fetch (location_id, dataset, product, fetched_at)
      select l.location_id, d.dataset::envdata.dataset, p.product, d.fetched_at
      from envdata.location l
      cross join unnest(enum_range(null::envdata.snapshot_product)) as p(product)
      cross join lateral (
        select 'pollen' as dataset, greatest(${newest('pollen')}) as fetched_at
        union all
        select 'weather', greatest(${newest('weather')})
      ) d
      where d.fetched_at is not null;
      ${rebuild}
      return copied;
    end
    $fn$;
    comment on function envdata.rebuild_current_snapshots() is
      'Refills envdata.current_fetch and the envdata.*_snapshot_current copies from the snapshot tables. Returns the rows copied.';
    select envdata.rebuild_current_snapshots();

    create function envdata.current_local_times() returns trigger language plpgsql as $fn$
    begin${localTimes}
      return null;
    end
    $fn$;
    create trigger location_timezone_changed
      after update of timezone on envdata.location
      for each row when (old.timezone is distinct from new.timezone)
      execute function envdata.current_local_times();

    create or replace view analytics.pollen_forecast as
    select ${FORECAST_HEAD},
      s.pollen_type, s.count, s.risk_level
    from envdata.pollen_snapshot_current s
    join envdata.location l on l.location_id = s.location_id
    where s.product <> 'latest';

    create or replace view analytics.pollen_species_forecast as
    select ${FORECAST_HEAD},
      sp.category::text as category, sp.name as species, s.count, s.risk_level
    from envdata.pollen_species_snapshot_current s
    join envdata.location l on l.location_id = s.location_id
    join envdata.pollen_species sp on sp.species_id = s.species_id
    where s.product <> 'latest';

    create or replace view analytics.weather_forecast as
    select ${FORECAST_HEAD}, ${weatherValues('s')}
    from envdata.weather_snapshot_current s
    join envdata.location l on l.location_id = s.location_id
    where s.product <> 'latest';

    ${latest('pollen_snapshot', 's.pollen_type, s.count, s.risk_level')}
    ${latest('weather_snapshot', weatherValues('s'))}`,
    )
    .execute(db);
}

/**
 * A latest view (0039's columns) over the copy of `table`: of each location's current latest
 * snapshot, its newest hour, as before.
 */
function latest(table: 'pollen_snapshot' | 'weather_snapshot', values: string): string {
  const view = table === 'pollen_snapshot' ? 'pollen_latest' : 'weather_latest';
  return `
    create or replace view analytics.${view} as
    select l.location_id, l.name as location_name, s.fetched_at, s.valid_at as observed_at,
      s.valid_at_local as observed_at_local,
      ${values},
      s.stamped_at_fetch
    from envdata.${table}_current s
    join envdata.location l on l.location_id = s.location_id
    where s.product = 'latest'
      and s.valid_at = (select max(n.valid_at) from envdata.${table}_current n
        where n.product = 'latest' and n.location_id = s.location_id);`;
}

export async function down(db: Kysely<any>): Promise<void> {
  const lateral = (table: string) => `
    cross join lateral (
      select n.* from envdata.${table} n
      where n.location_id = l.location_id and n.product = p.product
      order by n.fetched_at desc fetch first 1 rows with ties
    ) s`;
  const head = `l.location_id, l.name as location_name, p.product::text as product, s.fetched_at,
      s.valid_at, s.valid_at at time zone l.timezone as valid_at_local,
      floor(extract(epoch from s.valid_at - s.fetched_at) / 3600)::integer as lead_hours`;
  const products = 'cross join unnest(enum_range(null::envdata.snapshot_product)) as p(product)';
  await sql
    .raw(
      `
    create or replace view analytics.pollen_forecast as
    select ${head}, s.pollen_type::text as pollen_type, s.count, s.risk_level::text as risk_level
    from envdata.location l ${products} ${lateral('pollen_snapshot')}
    where p.product <> 'latest';

    create or replace view analytics.pollen_species_forecast as
    select ${head}, sp.category::text as category, sp.name as species, s.count,
      s.risk_level::text as risk_level
    from envdata.location l ${products} ${lateral('pollen_species_snapshot')}
    join envdata.pollen_species sp on sp.species_id = s.species_id
    where p.product <> 'latest';

    create or replace view analytics.weather_forecast as
    select ${head}, ${weatherValues('s')}
    from envdata.location l ${products} ${lateral('weather_snapshot')}
    where p.product <> 'latest';
    ${latestViews('create or replace', true)}

    drop trigger location_timezone_changed on envdata.location;
    drop function envdata.current_local_times();
    drop function envdata.rebuild_current_snapshots();
    drop function envdata.advance_current_snapshot(integer, envdata.dataset,
      envdata.snapshot_product, timestamptz);
    drop function envdata.copy_current_rows(text, envdata.dataset, integer,
      envdata.snapshot_product);
    drop table envdata.weather_snapshot_current, envdata.pollen_species_snapshot_current,
      envdata.pollen_snapshot_current, envdata.current_fetch;`,
    )
    .execute(db);
}
