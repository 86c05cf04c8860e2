import { sql, type Kysely } from 'kysely';
import type { WeatherRow } from '../datasets/weather/weather-rows.js';
import { SHARE_UNIT_UNKNOWN } from '../datasets/weather/normalize-weather.js';
import type { ChunkLanding } from '../ledger/landing-decision.js';
import type { Logger } from '../logging/create-logger.js';
import { SHARE_FIELDS, type ShareField } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { rebuildFromArchive } from '../landing/rebuild-from-archive.js';

/** The name migration 0041 gives the repair in `envdata.pending_repair`. */
export const SHARE_UNITS_REPAIR = 'share-units-per-field';

export interface ShareUnitRepair {
  /** Archived weather answers read again (no call to the service). */
  readonly answers: number;
  /** Share values whose stored value changed: filled where empty, or corrected. */
  readonly repaired: number;
  readonly repairedByField: Readonly<Record<ShareField, number>>;
  /** Share values still set aside (their field's unit still unknown), from the quarantine. */
  readonly stillSetAside: number;
  /** Archived answers that could not be read (they are left as they were). */
  readonly unreadable: number;
}

/** Stored columns of the share fields. */
const COLUMN: Readonly<Record<ShareField, keyof WeatherRow & string>> = {
  humidity: 'humidityFraction',
  cloudCover: 'cloudCoverFraction',
  precipProbability: 'precipProbabilityFraction',
};

/**
 * Reads every archived weather answer again with the rule per field (`weatherShareUnits`) and
 * lands it again (`rebuildFromArchive`, no call to the service), counting the share values this
 * changes: those the rule of one unit per answer set aside (humidity 81 beside cloud cover 0.83
 * made it call the whole answer contradictory) and those it read wrong (cloud cover 1 beside
 * humidity 92 read as 1 %). A value whose field's unit is still unknown stays set aside, with
 * its quarantine entry. Idempotent: a second run repairs nothing.
 */
export async function repairShareUnits(
  db: Kysely<Database>,
  logger: Logger,
): Promise<ShareUnitRepair> {
  const repairedByField = { humidity: 0, cloudCover: 0, precipProbability: 0 };
  const outcome = await rebuildFromArchive(db, { datasets: ['weather'] }, logger, {
    beforeLand: async (landings) => {
      const changed = await countChangedShares(db, landings);
      for (const field of SHARE_FIELDS) repairedByField[field] += changed[field];
    },
  });
  const { count } = await db
    .selectFrom('quarantine')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('reason', 'like', `${SHARE_UNIT_UNKNOWN}%`)
    .executeTakeFirstOrThrow();
  return {
    answers: outcome.chunks,
    repaired: SHARE_FIELDS.reduce((n, field) => n + repairedByField[field], 0),
    repairedByField,
    stillSetAside: Number(count),
    unreadable: outcome.failed.length,
  };
}

/**
 * The share values of `landings` that differ from what the warehouse holds for their hours
 * (a row not there yet counts each value it brings), by field.
 */
async function countChangedShares(
  db: Kysely<Database>,
  landings: readonly ChunkLanding[],
): Promise<Record<ShareField, number>> {
  const locationIds: number[] = [];
  const hours: Date[] = [];
  const values: Record<ShareField, (number | null)[]> = {
    humidity: [],
    cloudCover: [],
    precipProbability: [],
  };
  for (const landing of landings) {
    for (const { rows } of landing.facts.tables) {
      for (const row of rows as readonly WeatherRow[]) {
        locationIds.push(landing.locationId);
        hours.push(row.observedAt);
        for (const field of SHARE_FIELDS) values[field].push(row[COLUMN[field]] as number | null);
      }
    }
  }
  if (hours.length === 0) return { humidity: 0, cloudCover: 0, precipProbability: 0 };
  // The last copy of an hour in the batch is the one that stays (archive order); compared as
  // the columns store them (real).
  const { rows } = await sql<{ humidity: string; cloud_cover: string; precip: string }>`
    with incoming as (
      select distinct on (location_id, observed_at) *
      from unnest(${locationIds}::int[], ${hours.map((h) => h.toISOString())}::timestamptz[],
        ${values.humidity}::real[], ${values.cloudCover}::real[],
        ${values.precipProbability}::real[]) with ordinality
        as i(location_id, observed_at, humidity, cloud_cover, precip, n)
      order by location_id, observed_at, n desc
    )
    select
      count(*) filter (where w.humidity_fraction is distinct from i.humidity) as humidity,
      count(*) filter (where w.cloud_cover_fraction is distinct from i.cloud_cover) as cloud_cover,
      count(*) filter (where w.precip_probability_fraction is distinct from i.precip) as precip
    from incoming i
    left join envdata.weather_hourly w
      on w.location_id = i.location_id and w.observed_at = i.observed_at
    where w.location_id is null
      or w.humidity_fraction is distinct from i.humidity
      or w.cloud_cover_fraction is distinct from i.cloud_cover
      or w.precip_probability_fraction is distinct from i.precip`.execute(db);
  const [row] = rows;
  return {
    humidity: Number(row?.humidity ?? 0),
    cloudCover: Number(row?.cloud_cover ?? 0),
    precipProbability: Number(row?.precip ?? 0),
  };
}

/**
 * Makes the repairs migrations left in `envdata.pending_repair` (today: `share-units-per-field`,
 * migration 0041), each deleted once made, so an interrupted repair is made again at the next
 * `envdata migrate`. Returns what each repaired; nothing when none is pending.
 */
export async function makePendingRepairs(
  db: Kysely<Database>,
  logger: Logger,
): Promise<{ readonly shareUnits?: ShareUnitRepair }> {
  const pending = await db.selectFrom('pending_repair').select('repair').execute();
  if (!pending.some((p) => p.repair === SHARE_UNITS_REPAIR)) return {};
  const shareUnits = await repairShareUnits(db, logger);
  await db.deleteFrom('pending_repair').where('repair', '=', SHARE_UNITS_REPAIR).execute();
  return { shareUnits };
}
