import type { Kysely, Transaction } from 'kysely';
import type { WeatherRow } from '../normalize/fact-rows.js';
import type { LocatedRows } from './fact-table.js';
import { WEATHER_HOURLY } from './fact-tables.js';
import type { Database } from './schema.js';
import { upsertFacts } from './upsert-facts.js';

export type { LocatedRows } from './fact-table.js';

/**
 * Upserts hourly weather (`upsertFacts` into `WEATHER_HOURLY`); identical rows write nothing.
 * Rows must be unique per (location, hour). Returns the rows written.
 */
export function upsertWeatherHourly(
  db: Kysely<Database> | Transaction<Database>,
  groups: readonly LocatedRows<WeatherRow>[],
): Promise<number> {
  return upsertFacts(db, WEATHER_HOURLY, groups);
}
