import type { Kysely } from 'kysely';
import type { GeocodeMatch, GeocodePayload } from '../service/models.js';
import type { GeocodeQuery } from '../service/service-query.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Database } from '../warehouse/schema.js';

/** Answers older than this are asked again: places rarely move, but the service's data does. */
const MAX_AGE_MS = 30 * 24 * 3_600_000;

/** A geocoder that counts the calls it let through to the service. */
export interface CachedGeocoder extends Pick<ServiceClient, 'geocode'> {
  /** Calls made to the service (answers found in the table are not calls). */
  readonly calls: number;
}

/**
 * Geocodes through `client`, keeping each answer in `envdata.geocode_answer` by place text
 * (trimmed, lower case): the same place asked again within 30 days is answered from the table,
 * with no call. Only answers with matches are kept; a failure (no match included) is asked again.
 */
export function cachedGeocoder(
  db: Kysely<Database>,
  client: Pick<ServiceClient, 'geocode'>,
): CachedGeocoder {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    async geocode(query: GeocodeQuery): Promise<GeocodePayload> {
      const placeKey = query.place.normalize('NFC').trim().toLowerCase();
      const kept = await db
        .selectFrom('geocode_answer')
        .select('matches')
        .where('place_key', '=', placeKey)
        .where('answered_at', '>', new Date(Date.now() - MAX_AGE_MS))
        .executeTakeFirst();
      if (kept !== undefined) {
        const records = kept.matches as GeocodeMatch[];
        return { lat: undefined, lng: undefined, records, rejected: [], rawBody: '' };
      }
      calls += 1;
      const payload = await client.geocode(query);
      if (payload.records.length > 0) {
        const matches = JSON.stringify(payload.records);
        await db
          .insertInto('geocode_answer')
          .values({ place_key: placeKey, matches })
          .onConflict((oc) =>
            oc.column('place_key').doUpdateSet({ matches, answered_at: new Date() }),
          )
          .execute();
      }
      return payload;
    },
  };
}
