import { performance } from 'node:perf_hooks';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { OTHERS_SPECIES } from '../../src/datasets/pollen/normalize-pollen.js';
import {
  POLLEN_SPECIES_BY_REGION,
  TYPE_PEAK_DAY,
  regionHasSpeciesData,
} from '../../src/simulator/data/pollen-species-table.js';
import { POLLEN_RISK_THRESHOLDS } from '../../src/simulator/data/pollen-risk.js';
import type { PollenRegion, PollenType } from '../../src/types.js';
import { ensureMonthPartitions } from '../../src/warehouse/month-partitions.js';
import type { Database } from '../../src/warehouse/schema.js';

/** First year the service has pollen history for (as the simulator: 2016-01-01 UTC). */
export const POLLEN_FIRST_YEAR = 2016;

/** The fact tables the bench fills, in the order it fills them. */
export const FACT_TABLES = ['weather_hourly', 'pollen_hourly', 'pollen_species_hourly'] as const;
export type FactTable = (typeof FACT_TABLES)[number];

/** The forecast products a nightly sync stores: weather 72 h hourly, pollen 48 h hourly and 120 h 3-hourly. */
export const FORECAST_PRODUCTS = ['forecast_72h', 'forecast_48h', 'forecast_120h'] as const;
export type ForecastProduct = (typeof FORECAST_PRODUCTS)[number];

/** Hours ahead and step of each pollen product, as the service sends them. */
const POLLEN_PRODUCTS: Readonly<
  Record<Exclude<ForecastProduct, 'forecast_72h'>, [number, number]>
> = { forecast_48h: [48, 1], forecast_120h: [120, 3] };

/** What to generate: whole UTC years up to the end of `lastYear`, for every location. */
export interface WarehouseScale {
  /** Last UTC year of history (the bench uses the last complete year). */
  readonly lastYear: number;
  /** Years of hourly weather, ending with `lastYear`. */
  readonly weatherYears: number;
  /** Years of hourly pollen and species, ending with `lastYear`, never before 2016. */
  readonly pollenYears: number;
  /** Nights of forecasts (one nightly sync each) at the end of the history. */
  readonly forecastNights: number;
  /** The products each sync stores. */
  readonly forecastProducts: readonly ForecastProduct[];
  /**
   * Whether to fill the hourly facts. Without them the ledger still says every hour landed and
   * the pollen forecasts are still written (generated, not read from the facts); the weather
   * forecast is read from the facts, so it needs them.
   */
  readonly facts: boolean;
}

/** The hours of each dataset, `[from, to)`. */
export interface WarehouseSpans {
  readonly weather: { readonly from: Date; readonly to: Date };
  /**
   * A 48 h hole in the weather of the first location (June of the last year): hours the
   * ledger does not list as landed, as a backfill interrupted there would leave them.
   */
  readonly weatherGap: { readonly from: Date; readonly to: Date };
  readonly pollen: { readonly from: Date; readonly to: Date };
  readonly forecast: { readonly from: Date; readonly to: Date };
}

/** One filled table: rows written and the seconds it took. */
export interface FilledTable {
  readonly rows: number;
  readonly seconds: number;
}

export interface FillResult {
  readonly spans: WarehouseSpans;
  readonly facts: Readonly<Record<FactTable, FilledTable>>;
  readonly snapshots: FilledTable;
  readonly coverageSeconds: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const yearStart = (year: number) => new Date(Date.UTC(year, 0, 1));

/** The spans a scale implies (also what the test checks row counts against). */
export function spansOf(scale: WarehouseScale): WarehouseSpans {
  const to = yearStart(scale.lastYear + 1);
  const pollenFirst = Math.max(POLLEN_FIRST_YEAR, scale.lastYear + 1 - scale.pollenYears);
  const gapFrom = new Date(Date.UTC(scale.lastYear, 5, 1));
  return {
    weather: { from: yearStart(scale.lastYear + 1 - scale.weatherYears), to },
    weatherGap: { from: gapFrom, to: new Date(gapFrom.getTime() + 2 * DAY_MS) },
    pollen: { from: yearStart(pollenFirst), to },
    forecast: { from: new Date(to.getTime() - scale.forecastNights * DAY_MS), to },
  };
}

/** Hours in a span. */
export const hoursIn = (span: { from: Date; to: Date }): number =>
  Math.round((span.to.getTime() - span.from.getTime()) / HOUR_MS);

/** Regions without pollen data at all: the ledger records "no data" for them. */
export const NO_POLLEN_REGIONS: readonly PollenRegion[] = ['south_america_oceania'];

/** Species rows per hour a location of `region` gets (its species plus `Others`), 0 if none. */
export function speciesPerHour(region: PollenRegion): number {
  return regionHasSpeciesData(region) ? POLLEN_SPECIES_BY_REGION[region].length + 1 : 0;
}

/** Called before each statement of the fill, so an interrupt stops it between two. */
export type Checkpoint = (what: string) => void;

/**
 * Fills the fact tables of a migrated warehouse, whose locations are registered, server-side
 * (`generate_series`, one `INSERT … SELECT` per table and UTC year, in key order), with values
 * shaped like the service's: seasons by latitude and hemisphere, a diurnal cycle in solar time,
 * day-to-day swings, pollen seasons per species from the simulator's species table, risk levels
 * from its thresholds. Then forecasts for the last days (as a nightly sync keeps them) and the
 * ledger's coverage, consistent with what was written. Nothing goes through the API.
 *
 * Foreign keys are not checked row by row while filling (`session_replication_role = replica`,
 * superuser only): every row is generated from `envdata.location` and `envdata.pollen_species`,
 * so they hold by construction, and the bench measures queries, not the writer.
 */
export async function fillWarehouse(
  db: Kysely<Database>,
  scale: WarehouseScale,
  checkpoint: Checkpoint = () => undefined,
): Promise<FillResult> {
  const spans = spansOf(scale);
  if (!scale.facts && scale.forecastProducts.includes('forecast_72h')) {
    throw new Error('the weather forecast is read from the weather facts: fill the facts too');
  }
  await insertSpeciesNames(db);
  return db.connection().execute(async (conn) => {
    await sql`set session_replication_role = replica`.execute(conn);
    try {
      const facts = {} as Record<FactTable, FilledTable>;
      for (const table of FACT_TABLES) {
        if (!scale.facts) {
          facts[table] = { rows: 0, seconds: 0 };
          continue;
        }
        const span = table === 'weather_hourly' ? spans.weather : spans.pollen;
        let rows = 0;
        let seconds = 0;
        for (let year = span.from.getUTCFullYear(); year < span.to.getUTCFullYear(); year++) {
          checkpoint(`${table} ${year}`);
          const t0 = performance.now();
          const statement = FILL[table](yearStart(year), yearStart(year + 1));
          const result = await statement.execute(conn);
          seconds += (performance.now() - t0) / 1_000;
          rows += Number(result.numAffectedRows ?? 0n);
        }
        facts[table] = { rows, seconds };
      }
      const cut = await sql`
        delete from envdata.weather_hourly
        where location_id = (select min(location_id) from envdata.location)
          and observed_at >= ${spans.weatherGap.from}::timestamptz
          and observed_at < ${spans.weatherGap.to}::timestamptz`.execute(conn);
      facts.weather_hourly = {
        ...facts.weather_hourly,
        rows: facts.weather_hourly.rows - Number(cut.numAffectedRows ?? 0n),
      };
      const t0 = performance.now();
      const snapshots = await fillForecasts(
        conn,
        spans.forecast,
        scale.forecastProducts,
        checkpoint,
      );
      const snapshotSeconds = (performance.now() - t0) / 1_000;
      checkpoint('coverage');
      const t1 = performance.now();
      await fillCoverage(conn, spans);
      return {
        spans,
        facts,
        snapshots: { rows: snapshots, seconds: snapshotSeconds },
        coverageSeconds: (performance.now() - t1) / 1_000,
      };
    } finally {
      await sql`reset session_replication_role`.execute(conn);
    }
  });
}

/** Every species of the simulator's table, and `Others`, as envdata would have stored them. */
async function insertSpeciesNames(db: Kysely<Database>): Promise<void> {
  const pairs = new Map<string, { category: string; name: string }>();
  for (const list of Object.values(POLLEN_SPECIES_BY_REGION)) {
    for (const s of list) pairs.set(`${s.type}/${s.name}`, { category: s.type, name: s.name });
  }
  pairs.set(`other/${OTHERS_SPECIES}`, { category: 'other', name: OTHERS_SPECIES });
  const list = [...pairs.values()];
  await sql`
    insert into envdata.pollen_species (category, name)
    select * from unnest(${list.map((p) => p.category)}::envdata.species_category[],
      ${list.map((p) => p.name)}::text[])
    on conflict (category, name) do nothing`.execute(db);
}

/** `count` → risk level of `type`, with the simulator's thresholds. */
function riskOf(count: RawBuilder<unknown>, type: RawBuilder<unknown>): RawBuilder<unknown> {
  const branch = (t: PollenType) => {
    const [low, moderate, high] = POLLEN_RISK_THRESHOLDS[t];
    return sql`when ${sql.lit(t)} then case when ${count} <= ${sql.lit(low)} then 'Low'
      when ${count} <= ${sql.lit(moderate)} then 'Moderate'
      when ${count} <= ${sql.lit(high)} then 'High' else 'Very High' end`;
  };
  return sql`(case ${type} ${branch('tree')} ${branch('grass')} ${branch('weed')} end)::envdata.risk_level`;
}

/**
 * Per location and hour `t` (SQL): `doy` (day of year), `dn` (day number), `solar` (solar hour
 * 0–24), `south` (southern hemisphere), as `k`. Shared by every generator.
 */
const CLOCK = (t: RawBuilder<unknown>) => sql`
  cross join lateral (select
    extract(doy from ${t})::float8 as doy,
    floor(extract(epoch from ${t}) / 86400)::float8 as dn,
    extract(hour from ${t})::float8 + l.lng / 15 + 48
      - 24 * floor((extract(hour from ${t})::float8 + l.lng / 15 + 48) / 24) as solar,
    l.lat < 0 as south) k`;

/** Every location's hours `h.t` in `[from, to)`, with their `CLOCK`. */
const HOURS = (from: Date, to: Date) => sql`
  envdata.location l
  cross join lateral generate_series(${from}::timestamptz, ${to}::timestamptz - interval '1 hour',
    interval '1 hour') h(t)
  ${CLOCK(sql`h.t`)}`;

/**
 * A pollen season's strength at `k.doy`: a Gaussian around `peak` days (half a year later in
 * the south) of `width` days, never quite zero; times a day-to-day swing (0.2–1.6, smooth in
 * the day number, its phase from `phase`) and a diurnal cycle peaking mid-afternoon.
 */
const SEASON = (
  peak: RawBuilder<unknown>,
  width: RawBuilder<unknown>,
  phase: RawBuilder<unknown>,
) => {
  const days = sql`(k.doy - ${peak} - case when k.south then 182 else 0 end)`;
  return sql`
  (exp(-0.5 * power(abs(${days} - 365 * round(${days} / 365)) / ${width}, 2)) + 0.004)
  * (0.2 + 1.4 * (0.5 + 0.5 * sin(k.dn * 0.61 + ${phase}) * cos(k.dn * 0.23 + ${phase} * 0.7)))
  * (0.35 + 0.65 * exp(-power((k.solar - 14) / 4.5, 2)))`;
};

/** Type amplitudes: peaks reach each type's `Very High` on strong days. */
const TYPE_AMPLITUDE: Readonly<Record<PollenType, number>> = { tree: 1400, grass: 420, weed: 300 };

const TYPES = sql.raw(
  `(values ${(['tree', 'grass', 'weed'] as const)
    .map(
      (t, i) =>
        `('${t}'::envdata.pollen_type, ${TYPE_PEAK_DAY[t]}, ${[30, 35, 25][i]}, ${TYPE_AMPLITUDE[t]}, ${i})`,
    )
    .join(', ')}) ty(pollen_type, peak_day, width, amplitude, ix)`,
);

/**
 * Species profiles per region: region, category, name, peak day, width, amplitude, with
 * `Others` (a small count, no season) in every region that has species data.
 */
function speciesProfiles(): RawBuilder<unknown> {
  const rows: string[] = [];
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  for (const [region, list] of Object.entries(POLLEN_SPECIES_BY_REGION) as [
    PollenRegion,
    (typeof POLLEN_SPECIES_BY_REGION)[PollenRegion],
  ][]) {
    if (!regionHasSpeciesData(region)) continue;
    for (const s of list) {
      rows.push(
        `(${q(region)}, ${q(s.type)}, ${q(s.name)}, ${TYPE_PEAK_DAY[s.type] + s.offsetDays}, ${s.widthDays}, ${s.peak * 1.2})`,
      );
    }
    rows.push(`(${q(region)}, 'other', ${q(OTHERS_SPECIES)}, 0, 1000, 8)`);
  }
  return sql.raw(
    `(values ${rows.join(', ')}) sp(region, category, name, peak_day, width, amplitude)`,
  );
}

const FILL: Readonly<Record<FactTable, (from: Date, to: Date) => RawBuilder<unknown>>> = {
  weather_hourly: (from, to) => sql`
    insert into envdata.weather_hourly (location_id, observed_at, temperature_c,
      apparent_temperature_c, dew_point_c, humidity_fraction, pressure_hpa, wind_speed_ms,
      wind_gust_ms, wind_bearing_deg, cloud_cover_fraction, visibility_km, uv_index, ozone_du,
      precip_intensity_mm_h, precip_probability_fraction, precip_type, summary, icon, icon_raw)
    select l.location_id, h.t, b.temp, b.temp - 0.3 * b.wind, b.temp - (1 - b.hum) * 18, b.hum,
      b.pressure, b.wind, b.wind * (1.2 + 0.5 * random()), 360 * random(), b.cloud,
      10 - 7 * b.cloud * random(), b.uv, b.ozone, b.precip,
      least(1, b.cloud * 0.8 + case when b.precip > 0 then 0.2 else 0 end),
      case when b.precip > 0 then case when b.temp < 0 then 'snow' else 'rain' end end,
      c.summary, c.icon::envdata.weather_icon, c.icon
    from ${HOURS(from, to)}
    cross join lateral (select
        -- season: +1 at the hemisphere's mid-summer, -1 at mid-winter
        cos(2 * pi() * (k.doy - 196) / 365.25) * case when k.south then -1 else 1 end as season,
        sin(k.dn * 0.9 + l.location_id) * cos(k.dn * 0.31 + l.location_id * 1.3) as swing,
        0.5 + 0.5 * sin(k.dn * 0.7 + l.location_id * 0.5) * cos(k.dn * 0.17) as overcast) s
    cross join lateral (select
        (27 - 0.42 * abs(l.lat) + 0.3 * abs(l.lat) * s.season + 4 * s.swing
          + 4 * cos(2 * pi() * (k.solar - 15) / 24) + random() - 0.5)::real as temp,
        least(1, greatest(0.05, 0.45 + 0.35 * s.overcast - 0.15 * cos(2 * pi() * (k.solar - 15) / 24)
          + 0.1 * random()))::real as hum,
        (1013 + 9 * s.swing + random())::real as pressure,
        (0.5 + 7 * power(random(), 2) + 3 * s.overcast)::real as wind,
        least(1, greatest(0, s.overcast + 0.2 * random() - 0.1))::real as cloud,
        greatest(0, (11 - abs(l.lat) / 9 + 3 * s.season) * cos(2 * pi() * (k.solar - 12) / 24)
          * (1 - 0.6 * s.overcast))::real as uv,
        (300 + 25 * s.season + 5 * random())::real as ozone,
        case when random() < 0.16 * power(s.overcast, 2) then (0.1 + 4 * power(random(), 2))::real
          else 0::real end as precip) b
    cross join lateral (select
        case when b.precip > 0 and b.temp < 0 then 'Snow' when b.precip > 0 then 'Rain'
          when b.cloud > 0.75 then 'Overcast' when b.cloud > 0.35 then 'Partly Cloudy'
          else 'Clear' end as summary,
        case when b.precip > 0 and b.temp < 0 then 'snow' when b.precip > 0 then 'rain'
          when b.cloud > 0.75 then 'cloudy' when b.cloud > 0.35 then 'partly-cloudy'
          else 'clear' end as icon) c`,

  pollen_hourly: (from, to) => sql`
    insert into envdata.pollen_hourly (location_id, observed_at, pollen_type, count, risk_level)
    select v.location_id, v.t, v.pollen_type, v.count, ${riskOf(sql`v.count`, sql`v.pollen_type::text`)}
    from (
      select l.location_id, h.t, ty.pollen_type,
        round(ty.amplitude * ${SEASON(sql`ty.peak_day`, sql`ty.width`, sql`(l.location_id * 0.37 + ty.ix)`)}
          * (0.9 + 0.2 * random()))::int as count
      from ${HOURS(from, to)}
      cross join ${TYPES}
      where l.pollen_region <> all(${NO_POLLEN_REGIONS}::envdata.pollen_region[])
    ) v`,

  pollen_species_hourly: (from, to) => sql`
    insert into envdata.pollen_species_hourly (location_id, observed_at, species_id, count, risk_level)
    select v.location_id, v.t, v.species_id, v.count,
      case when v.category <> 'other' then ${riskOf(sql`v.count`, sql`v.category`)} end
    from (
      select l.location_id, h.t, ps.species_id, sp.category,
        round(sp.amplitude * ${SEASON(sql`sp.peak_day`, sql`sp.width`, sql`(l.location_id * 0.37 + ps.species_id * 0.11)`)}
          * (0.9 + 0.2 * random()))::int as count
      from ${HOURS(from, to)}
      join ${speciesProfiles()} on sp.region = l.pollen_region::text
      join envdata.pollen_species ps on ps.category::text = sp.category and ps.name = sp.name
    ) v`,
};

/**
 * Forecasts as a nightly sync at 02:00 UTC keeps them, of `products`: weather `forecast_72h`
 * (hourly, each hour the observed one off by an error that grows with the lead: read from the
 * weather facts) and pollen `forecast_48h` (hourly) and `forecast_120h` (3-hourly, generated with
 * the facts' seasons, off by an error that grows with the lead: no facts needed, so a year of
 * nights is cheap). One statement per table and month of fetches, its partition created first
 * as the app does; then each location's newest forecast copied as a sync keeps it (migration
 * 0040). Returns the snapshot rows written.
 */
async function fillForecasts(
  conn: Kysely<Database>,
  span: { from: Date; to: Date },
  products: readonly ForecastProduct[],
  checkpoint: Checkpoint,
): Promise<number> {
  const pollen = products.flatMap((p) => (p === 'forecast_72h' ? [] : [p]));
  const tables = [
    ...(products.includes('forecast_72h') ? (['weather_snapshot'] as const) : []),
    ...(pollen.length > 0 ? (['pollen_snapshot'] as const) : []),
  ];
  let rows = 0;
  for (let from = span.from; from < span.to;) {
    const month = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
    const to = month < span.to ? month : span.to;
    checkpoint(`forecast snapshots ${from.toISOString().slice(0, 7)}`);
    await ensureMonthPartitions(conn, tables, from);
    const syncs = sql`generate_series(${from}::timestamptz + interval '2 hours',
      ${to}::timestamptz - interval '1 day' + interval '2 hours', interval '1 day') f(fetched_at)`;
    if (tables.includes('weather_snapshot')) rows += await fillWeatherForecasts(conn, syncs);
    if (pollen.length > 0) rows += await fillPollenForecasts(conn, syncs, pollen);
    from = to;
  }
  // What the stores of a sync keep as they go (envdata.advance_current_snapshot), at once.
  checkpoint('current forecasts');
  await sql`select envdata.rebuild_current_snapshots()`.execute(conn);
  return rows;
}

async function fillWeatherForecasts(
  conn: Kysely<Database>,
  syncs: RawBuilder<unknown>,
): Promise<number> {
  const result = await sql`
    insert into envdata.weather_snapshot (location_id, product, fetched_at, valid_at,
      temperature_c, apparent_temperature_c, dew_point_c, humidity_fraction, pressure_hpa,
      wind_speed_ms, wind_gust_ms, wind_bearing_deg, cloud_cover_fraction, visibility_km,
      uv_index, ozone_du, precip_intensity_mm_h, precip_probability_fraction, precip_type,
      summary, icon, icon_raw)
    select o.location_id, 'forecast_72h', f.fetched_at, o.observed_at,
      o.temperature_c + e.err * 2, o.apparent_temperature_c + e.err * 2, o.dew_point_c + e.err,
      least(1, greatest(0, o.humidity_fraction + e.err * 0.05)), o.pressure_hpa + e.err * 2,
      greatest(0, o.wind_speed_ms + e.err), o.wind_gust_ms, o.wind_bearing_deg,
      least(1, greatest(0, o.cloud_cover_fraction + e.err * 0.1)), o.visibility_km, o.uv_index,
      o.ozone_du, greatest(0, o.precip_intensity_mm_h + e.err * 0.2),
      least(1, greatest(0, o.precip_probability_fraction + e.err * 0.1)), o.precip_type,
      o.summary, o.icon, o.icon_raw
    from envdata.location l
    cross join ${syncs}
    join envdata.weather_hourly o on o.location_id = l.location_id
      and o.observed_at >= f.fetched_at and o.observed_at < f.fetched_at + interval '72 hours'
    cross join lateral (select (random() * 2 - 1)
      * extract(epoch from o.observed_at - f.fetched_at) / 86400 as err) e`.execute(conn);
  return Number(result.numAffectedRows ?? 0n);
}

/** Pollen forecasts of `products`, in primary-key order (location, product, fetch, hour, type). */
async function fillPollenForecasts(
  conn: Kysely<Database>,
  syncs: RawBuilder<unknown>,
  products: readonly (keyof typeof POLLEN_PRODUCTS)[],
): Promise<number> {
  const values = sql.raw(
    `(values ${products
      .map((p) => `('${p}'::envdata.snapshot_product, ${POLLEN_PRODUCTS[p].join(', ')})`)
      .join(', ')}) p(product, hours, step)`,
  );
  const result = await sql`
    insert into envdata.pollen_snapshot (location_id, product, fetched_at, valid_at, pollen_type,
      count, risk_level)
    select v.location_id, v.product, v.fetched_at, v.t, v.pollen_type, v.count,
      ${riskOf(sql`v.count`, sql`v.pollen_type::text`)}
    from (
      select l.location_id, p.product, f.fetched_at, h.t, ty.pollen_type,
        greatest(0, round(ty.amplitude
          * ${SEASON(sql`ty.peak_day`, sql`ty.width`, sql`(l.location_id * 0.37 + ty.ix)`)}
          * (1 + (random() * 2 - 1) * extract(epoch from h.t - f.fetched_at) / 86400 * 0.25)))::int
          as count
      from envdata.location l
      cross join ${values}
      cross join ${syncs}
      cross join lateral generate_series(f.fetched_at,
        f.fetched_at + (p.hours - p.step) * interval '1 hour', p.step * interval '1 hour') h(t)
      ${CLOCK(sql`h.t`)}
      cross join ${TYPES}
      where l.pollen_region <> all(${NO_POLLEN_REGIONS}::envdata.pollen_region[])
    ) v`.execute(conn);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * The ledger's coverage, as the landings would have left it: every generated hour `landed`
 * (the weather gap left out);
 * regions without pollen data answered "no data" over the pollen span.
 */
async function fillCoverage(conn: Kysely<Database>, spans: WarehouseSpans): Promise<void> {
  const range = (s: { from: Date; to: Date }) =>
    sql`tstzmultirange(tstzrange(${s.from}::timestamptz, ${s.to}::timestamptz))`;
  await sql`
    insert into envdata.coverage (location_id, dataset, landed, no_data)
    select l.location_id, 'weather'::envdata.dataset,
      case when l.location_id = (select min(location_id) from envdata.location)
        then ${range(spans.weather)} - ${range(spans.weatherGap)} else ${range(spans.weather)} end,
      '{}'::tstzmultirange
    from envdata.location l
    union all
    select l.location_id, 'pollen'::envdata.dataset,
      case when l.pollen_region = any(${NO_POLLEN_REGIONS}::envdata.pollen_region[])
        then '{}'::tstzmultirange else ${range(spans.pollen)} end,
      case when l.pollen_region = any(${NO_POLLEN_REGIONS}::envdata.pollen_region[])
        then ${range(spans.pollen)} else '{}'::tstzmultirange end
    from envdata.location l`.execute(conn);
}

/**
 * Marks every generated hour dirty, as the landings would have (one window per location and
 * dataset): `envdata.refresh_daily_rollups()` then recomputes every local day.
 */
export async function markAllDirty(db: Kysely<Database>): Promise<void> {
  await sql`
    insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
    select location_id, dataset, lower(landed), upper(landed)
    from envdata.coverage where not isempty(landed)`.execute(db);
}
