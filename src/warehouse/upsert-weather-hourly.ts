import { sql, type Kysely, type Transaction } from 'kysely';
import type { WeatherRow } from '../normalize/fact-rows.js';
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
const VALUE_LIST = NAMES.join(', ');
const EXCLUDED_LIST = NAMES.map((c) => `excluded.${c}`).join(', ');
const TARGET_LIST = NAMES.map((c) => `t.${c}`).join(', ');
const SET_LIST = NAMES.map((c) => `${c} = excluded.${c}`).join(', ');

/**
 * Upserts hourly weather in one set-based statement: `INSERT … SELECT unnest(…)` (no bind
 * parameter ceiling) `ON CONFLICT … DO UPDATE … WHERE … IS DISTINCT FROM …` (identical rows
 * write nothing). Rows must be unique per (location, hour). Returns the rows written.
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
  const result = await sql`
    insert into envdata.weather_hourly as t (location_id, observed_at, ${sql.raw(VALUE_LIST)})
    select location_id, to_timestamp(observed_at), ${sql.raw(VALUE_LIST)}
    from (
      select unnest(${locationIds.build()}::int[]) as location_id,
        unnest(${observedAt.build()}::float8[]) as observed_at, ${unnests}
    ) u
    on conflict (location_id, observed_at) do update set ${sql.raw(SET_LIST)}
    where (${sql.raw(TARGET_LIST)}) is distinct from (${sql.raw(EXCLUDED_LIST)})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
