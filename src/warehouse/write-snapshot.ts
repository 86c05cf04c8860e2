import type { Kysely } from 'kysely';
import { normalizePollen } from '../normalize/normalize-pollen.js';
import { normalizeWeather } from '../normalize/normalize-weather.js';
import type { PollenPayload, WeatherPayload } from '../service/models.js';
import type { Database, SnapshotProduct } from './schema.js';
import type { SpeciesIds } from './species-ids.js';

export type Snapshot =
  | { readonly dataset: 'pollen'; readonly payload: PollenPayload }
  | { readonly dataset: 'weather'; readonly payload: WeatherPayload };

/**
 * Stores a latest reading or a forecast as fetched at `fetchedAt`, beside the observations, so
 * `analytics.forecast_accuracy` can compare them later. Idempotent: the same snapshot stored
 * twice keeps the first. Returns the rows written.
 */
export async function writeSnapshot(
  db: Kysely<Database>,
  species: SpeciesIds,
  target: { locationId: number; product: SnapshotProduct; fetchedAt: Date },
  snapshot: Snapshot,
): Promise<number> {
  const { locationId, product, fetchedAt } = target;
  if (snapshot.dataset === 'weather') {
    const { rows } = normalizeWeather(snapshot.payload);
    if (rows.length === 0) return 0;
    const result = await db
      .insertInto('weather_snapshot')
      .values(
        rows.map((r) => ({
          location_id: locationId,
          product,
          fetched_at: fetchedAt,
          valid_at: r.observedAt,
          temperature_c: r.temperatureC,
          apparent_temperature_c: r.apparentTemperatureC,
          dew_point_c: r.dewPointC,
          humidity_fraction: r.humidityFraction,
          pressure_hpa: r.pressureHpa,
          wind_speed_ms: r.windSpeedMs,
          wind_gust_ms: r.windGustMs,
          wind_bearing_deg: r.windBearingDeg,
          cloud_cover_fraction: r.cloudCoverFraction,
          visibility_km: r.visibilityKm,
          uv_index: r.uvIndex,
          ozone_du: r.ozoneDu,
          precip_intensity_mm_h: r.precipIntensityMmH,
          precip_probability_fraction: r.precipProbabilityFraction,
          precip_type: r.precipType,
          summary: r.summary,
          icon: r.icon,
          icon_raw: r.iconRaw,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  const { typeRows, speciesRows } = normalizePollen(snapshot.payload);
  await species.resolve(db, speciesRows);
  return db.transaction().execute(async (trx) => {
    let written = 0;
    if (typeRows.length > 0) {
      const r = await trx
        .insertInto('pollen_snapshot')
        .values(
          typeRows.map((row) => ({
            location_id: locationId,
            product,
            fetched_at: fetchedAt,
            valid_at: row.observedAt,
            pollen_type: row.pollenType,
            count: row.count,
            risk_level: row.riskLevel,
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      written += Number(r.numInsertedOrUpdatedRows ?? 0n);
    }
    if (speciesRows.length > 0) {
      const r = await trx
        .insertInto('pollen_species_snapshot')
        .values(
          speciesRows.map((row) => ({
            location_id: locationId,
            product,
            fetched_at: fetchedAt,
            valid_at: row.observedAt,
            species_id: species.require(row.category, row.species),
            count: row.count,
            risk_level: row.riskLevel,
          })),
        )
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      written += Number(r.numInsertedOrUpdatedRows ?? 0n);
    }
    return written;
  });
}
