import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { WeatherRow } from './fact-rows.js';
import type { Database } from './schema.js';

/** Rows of one location, as the writer groups them. */
export interface LocatedRows<Row> {
  readonly locationId: number;
  readonly rows: readonly Row[];
}

/**
 * A Postgres array literal (`{1,2.5,NULL,"a \"b\""}`) built element by element, passed as ONE
 * text parameter and cast server-side (`$1::real[]`). The writers build their arrays this way
 * rather than handing JS arrays to node-postgres, which quotes and regex-escapes every element
 * and formats every Date field by field in the local zone: on a batch of chunks that took longer
 * than the server's insert. Timestamps travel as epoch seconds (`to_timestamp`), which the server
 * also reads faster than ISO text.
 */
export class ArrayLiteral {
  private text = '{';
  private first = true;

  /** A number as JS prints it (`1.5`, `1e-7`); `null` → NULL. */
  number(value: number | null): void {
    const element =
      value === null
        ? 'NULL'
        : Number.isFinite(value)
          ? String(value)
          : // 'NaN', 'Infinity': what node-postgres sent, quoted as it quoted them.
            `"${String(value)}"`;
    this.text += this.first ? element : `,${element}`;
    this.first = false;
  }

  /** An instant as epoch seconds, for `to_timestamp(…)`; exact to the microsecond. */
  instant(value: Date): void {
    this.number(value.getTime() / 1_000);
  }

  /** A string, always quoted, `\` and `"` escaped; `null` → NULL. */
  string(value: string | null): void {
    const element =
      value === null
        ? 'NULL'
        : `"${value.includes('\\') || value.includes('"') ? value.replace(/[\\"]/g, '\\$&') : value}"`;
    this.text += this.first ? element : `,${element}`;
    this.first = false;
  }

  /** The literal, e.g. `{1,2,NULL}`. */
  build(): string {
    return `${this.text}}`;
  }
}

/**
 * Where a batch's rows may already be stored: per group, its location and first and last hour
 * (`unnest(…) as g(location_id, first_at, last_at)`), and the whole batch's span as constants
 * (`between …`), which let the planner prune the yearly partitions instead of planning a scan
 * of each (that took longer than running the statement for a batch of weather).
 */
export function storedRanges(groups: readonly LocatedRows<{ readonly observedAt: Date }>[]): {
  readonly ranges: RawBuilder<unknown>;
  readonly span: RawBuilder<unknown>;
} {
  const locationIds = new ArrayLiteral();
  const firstAt = new ArrayLiteral();
  const lastAt = new ArrayLiteral();
  let min = Infinity;
  let max = -Infinity;
  for (const { locationId, rows } of groups) {
    if (rows.length === 0) continue;
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
      ${lastAt.build()}::float8[]) as g(location_id, first_at, last_at)`,
    span: sql`between to_timestamp(${min / 1_000}::float8) and to_timestamp(${max / 1_000}::float8)`,
  };
}

/**
 * Whether any row of `table` is stored where the batch's rows would go: one index probe per
 * group (`limit 1` keeps each a probe), within the batch's partitions.
 */
export function anyStored(
  table: string,
  stored: ReturnType<typeof storedRanges>,
): RawBuilder<{ found: boolean }> {
  return sql<{ found: boolean }>`
    select exists (
      select from ${stored.ranges}
      cross join lateral (
        select from ${sql.table(table)} s
        where s.location_id = g.location_id
          and s.observed_at between to_timestamp(g.first_at) and to_timestamp(g.last_at)
          and s.observed_at ${stored.span}
        limit 1) x
    ) as found`;
}

/**
 * Writes a batch of fact rows the cheaper of two ways; either way the table ends as the upsert
 * alone would leave it.
 *
 * `probe` first asks whether any of the batch's rows may be stored. When none is (a backfill),
 * the rows go in with a plain INSERT under a savepoint: no speculative insertion and its extra
 * WAL record per row, about a quarter faster; should a concurrent landing have stored some in
 * the meantime (unique violation), the savepoint is rolled back and the upsert runs instead.
 * Otherwise `upsert` runs: it leaves out the rows identical to the stored ones (read with one
 * index range scan per group), so re-landing neither locks nor rewrites them, and upserts the
 * rest with `ON CONFLICT … DO UPDATE … WHERE … IS DISTINCT FROM`. Returns the rows written.
 */
export async function insertOrUpsert(
  db: Kysely<Database> | Transaction<Database>,
  statements: {
    readonly probe: RawBuilder<{ found: boolean }>;
    readonly insert: RawBuilder<unknown>;
    readonly upsert: RawBuilder<unknown>;
  },
): Promise<number> {
  if (!db.isTransaction) {
    return db.transaction().execute((trx) => insertOrUpsert(trx, statements));
  }
  const { rows } = await statements.probe.execute(db);
  if (!rows[0]?.found) {
    await sql`savepoint envdata_facts`.execute(db);
    try {
      const inserted = await statements.insert.execute(db);
      await sql`release savepoint envdata_facts`.execute(db);
      return Number(inserted.numAffectedRows ?? 0n);
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
      await sql`rollback to savepoint envdata_facts`.execute(db);
      await sql`release savepoint envdata_facts`.execute(db);
    }
  }
  const upserted = await statements.upsert.execute(db);
  return Number(upserted.numAffectedRows ?? 0n);
}

/** Columns after the key: name and element type of the array it travels in. */
const COLUMNS = [
  ['temperature_c', 'real'],
  ['apparent_temperature_c', 'real'],
  ['dew_point_c', 'real'],
  ['humidity_fraction', 'real'],
  ['pressure_hpa', 'real'],
  ['wind_speed_ms', 'real'],
  ['wind_gust_ms', 'real'],
  ['wind_bearing_deg', 'real'],
  ['cloud_cover_fraction', 'real'],
  ['visibility_km', 'real'],
  ['uv_index', 'real'],
  ['ozone_du', 'real'],
  ['precip_intensity_mm_h', 'real'],
  ['precip_probability_fraction', 'real'],
  ['precip_type', 'text'],
  ['summary', 'text'],
  ['icon', 'envdata.weather_icon'],
  ['icon_raw', 'text'],
] as const;
const NUMERIC_COLUMNS = 14;

const NAMES = COLUMNS.map(([c]) => c);
const list = (prefix: string) => sql.raw(NAMES.map((c) => `${prefix}${c}`).join(', '));
const SET_LIST = sql.raw(NAMES.map((c) => `${c} = excluded.${c}`).join(', '));

/**
 * Upserts hourly weather set-based (see `insertOrUpsert`): rows from arrays
 * (`unnest(…)`, no bind parameter ceiling), identical rows write nothing. Rows must be unique
 * per (location, hour). Returns the rows written.
 */
export async function upsertWeatherHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<WeatherRow>[],
): Promise<number> {
  let n = 0;
  for (const g of groups) n += g.rows.length;
  if (n === 0) return 0;
  const locationIds = new ArrayLiteral();
  const observedAt = new ArrayLiteral();
  const columns = COLUMNS.map(() => new ArrayLiteral());
  const numeric = columns.slice(0, NUMERIC_COLUMNS);
  const [precipType, summary, icon, iconRaw] = columns.slice(NUMERIC_COLUMNS) as [
    ArrayLiteral,
    ArrayLiteral,
    ArrayLiteral,
    ArrayLiteral,
  ];
  for (const { locationId, rows } of groups) {
    for (const r of rows) {
      locationIds.number(locationId);
      observedAt.instant(r.observedAt);
      numeric[0]!.number(r.temperatureC);
      numeric[1]!.number(r.apparentTemperatureC);
      numeric[2]!.number(r.dewPointC);
      numeric[3]!.number(r.humidityFraction);
      numeric[4]!.number(r.pressureHpa);
      numeric[5]!.number(r.windSpeedMs);
      numeric[6]!.number(r.windGustMs);
      numeric[7]!.number(r.windBearingDeg);
      numeric[8]!.number(r.cloudCoverFraction);
      numeric[9]!.number(r.visibilityKm);
      numeric[10]!.number(r.uvIndex);
      numeric[11]!.number(r.ozoneDu);
      numeric[12]!.number(r.precipIntensityMmH);
      numeric[13]!.number(r.precipProbabilityFraction);
      precipType.string(r.precipType);
      summary.string(r.summary);
      icon.string(r.icon);
      iconRaw.string(r.iconRaw);
    }
  }
  // unnest() in the select list (ProjectSet) zips the arrays without materialising each one
  // into a tuplestore as `FROM unnest(a, b, …)` does: about a third less server time.
  const unnests = sql.join(
    COLUMNS.map(
      ([name, type], c) =>
        sql`unnest(${columns[c]!.build()}::${sql.raw(type)}[]) as ${sql.raw(name)}`,
    ),
  );
  const rows = sql`
    select location_id, to_timestamp(observed_at) as observed_at, ${list('')}
    from (
      select unnest(${locationIds.build()}::int[]) as location_id,
        unnest(${observedAt.build()}::float8[]) as observed_at, ${unnests}
    ) r`;
  const stored = storedRanges(groups);
  return insertOrUpsert(db, {
    probe: anyStored('envdata.weather_hourly', stored),
    insert: sql`insert into envdata.weather_hourly (location_id, observed_at, ${list('')}) ${rows}`,
    upsert: sql`
      with u as materialized (${rows}),
      stored as materialized (
        -- offset 0 keeps the lateral one index range scan per group, never a join that could
        -- scan the whole table; materialized, the anti-join below hashes it once.
        select x.* from ${stored.ranges}
        cross join lateral (
          select s.location_id, s.observed_at, ${list('s.')} from envdata.weather_hourly s
          where s.location_id = g.location_id
            and s.observed_at between to_timestamp(g.first_at) and to_timestamp(g.last_at)
            and s.observed_at ${stored.span}
          offset 0) x
      )
      insert into envdata.weather_hourly as t (location_id, observed_at, ${list('')})
      select * from u
      where not exists (
        select from stored s
        where s.location_id = u.location_id and s.observed_at = u.observed_at
          and (${list('s.')}) is not distinct from (${list('u.')}))
      on conflict (location_id, observed_at) do update set ${SET_LIST}
      where (${list('t.')}) is distinct from (${list('excluded.')})`,
  });
}
