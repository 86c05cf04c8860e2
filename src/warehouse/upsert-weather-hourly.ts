import { sql, type Kysely, type Transaction } from 'kysely';
import type { WeatherRow } from '../normalize/fact-rows.js';
import type { Database } from './schema.js';

/** Rows of one location, as the writer groups them. */
export interface LocatedRows<Row> {
  readonly locationId: number;
  readonly rows: readonly Row[];
}

const COLUMNS = [
  'temperature_c',
  'apparent_temperature_c',
  'dew_point_c',
  'humidity_fraction',
  'pressure_hpa',
  'wind_speed_ms',
  'wind_gust_ms',
  'wind_bearing_deg',
  'cloud_cover_fraction',
  'visibility_km',
  'uv_index',
  'ozone_du',
  'precip_intensity_mm_h',
  'precip_probability_fraction',
  'precip_type',
  'summary',
  'icon',
  'icon_raw',
] as const;

const VALUE_LIST = COLUMNS.join(', ');
const EXCLUDED_LIST = COLUMNS.map((c) => `excluded.${c}`).join(', ');
const TARGET_LIST = COLUMNS.map((c) => `t.${c}`).join(', ');
const SET_LIST = COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ');

/**
 * Upserts hourly weather in one set-based statement: `INSERT … SELECT FROM unnest(…)` (no bind
 * parameter ceiling) `ON CONFLICT … DO UPDATE … WHERE … IS DISTINCT FROM …` (identical rows
 * write nothing). Rows must be unique per (location, hour). Returns the rows written.
 */
export async function upsertWeatherHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<WeatherRow>[],
): Promise<number> {
  const n = groups.reduce((sum, g) => sum + g.rows.length, 0);
  if (n === 0) return 0;
  const locationIds = new Array<number>(n);
  const observedAt = new Array<Date>(n);
  const columns = COLUMNS.map(() => new Array<unknown>(n));
  let i = 0;
  for (const { locationId, rows } of groups) {
    for (const r of rows) {
      locationIds[i] = locationId;
      observedAt[i] = r.observedAt;
      const values = [
        r.temperatureC,
        r.apparentTemperatureC,
        r.dewPointC,
        r.humidityFraction,
        r.pressureHpa,
        r.windSpeedMs,
        r.windGustMs,
        r.windBearingDeg,
        r.cloudCoverFraction,
        r.visibilityKm,
        r.uvIndex,
        r.ozoneDu,
        r.precipIntensityMmH,
        r.precipProbabilityFraction,
        r.precipType,
        r.summary,
        r.icon,
        r.iconRaw,
      ];
      for (let c = 0; c < values.length; c++) columns[c]![i] = values[c];
      i++;
    }
  }
  const result = await sql`
    insert into envdata.weather_hourly as t (location_id, observed_at, ${sql.raw(VALUE_LIST)})
    select * from unnest(
      ${locationIds}::int[], ${observedAt}::timestamptz[],
      ${columns[0]}::real[], ${columns[1]}::real[], ${columns[2]}::real[], ${columns[3]}::real[],
      ${columns[4]}::real[], ${columns[5]}::real[], ${columns[6]}::real[], ${columns[7]}::real[],
      ${columns[8]}::real[], ${columns[9]}::real[], ${columns[10]}::real[], ${columns[11]}::real[],
      ${columns[12]}::real[], ${columns[13]}::real[], ${columns[14]}::text[], ${columns[15]}::text[],
      ${columns[16]}::envdata.weather_icon[], ${columns[17]}::text[])
    on conflict (location_id, observed_at) do update set ${sql.raw(SET_LIST)}
    where (${sql.raw(TARGET_LIST)}) is distinct from (${sql.raw(EXCLUDED_LIST)})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
