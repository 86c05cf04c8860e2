import { z } from 'zod';
import type { LocationWithAliases } from '../../locations/location.js';
import { POLLEN_REGIONS } from '../../types.js';
import { count, isoOrNull, isoTimestamp, jsonDocument } from './json-document.js';

/** `envdata locations list --json`. */
export const locationsJson = jsonDocument('locations', {
  locations: z
    .array(
      z.object({
        locationId: count.describe('the location’s id (`--location id:N`)'),
        name: z.string().describe('its unique name'),
        aliases: z
          .array(z.string())
          .describe(
            'other texts `--location` finds it by: the place text it was registered by, when that reads otherwise than its name',
          ),
        answersToName: z
          .boolean()
          .describe(
            '`false` when its name reads as an older location’s (both registered before names were compared as people read them): `--location` reaches it by `id:N` only',
          ),
        lat: z.number().min(-90).max(90).describe('latitude, decimal degrees'),
        lng: z.number().min(-180).max(180).describe('longitude, decimal degrees'),
        countryCode: z
          .string()
          .nullable()
          .describe('ISO 3166-1 alpha-2 code, upper case; `null` when unknown (at sea)'),
        timezone: z.string().describe('IANA time zone, e.g. `Europe/Berlin`'),
        pollenRegion: z
          .enum(POLLEN_REGIONS)
          .describe('the service’s pollen region for the point (decides the pollen types)'),
        place: z
          .string()
          .nullable()
          .describe('the place text it was registered by; `null` when registered by coordinates'),
        registeredBy: z
          .enum(['coordinates', 'place', 'import'])
          .describe('how it was registered: `coordinates`, `place` or `import`'),
        ingestByPlace: z
          .boolean()
          .describe('whether pollen is fetched by `place` rather than by coordinates'),
        retiredAt: isoTimestamp
          .nullable()
          .describe(
            'when `envdata locations remove` retired it (skipped by backfills and syncs); `null` while active',
          ),
      }),
    )
    .describe('every registered location, retired ones included, by id'),
});

export type LocationsJson = z.infer<typeof locationsJson>;

/** `envdata locations list` as JSON. */
export function toLocationsJson(
  list: readonly LocationWithAliases[],
  generatedAt: Date,
): LocationsJson {
  return {
    kind: 'locations',
    version: 1,
    generatedAt: generatedAt.toISOString(),
    locations: list.map((l) => ({
      locationId: l.locationId,
      name: l.name,
      aliases: [...l.aliases],
      answersToName: l.answersToName,
      lat: l.lat,
      lng: l.lng,
      countryCode: l.countryCode,
      timezone: l.timezone,
      pollenRegion: l.pollenRegion,
      place: l.place,
      registeredBy: l.registeredBy,
      ingestByPlace: l.ingestByPlace,
      retiredAt: isoOrNull(l.retiredAt),
    })),
  };
}
