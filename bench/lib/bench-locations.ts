import type { Kysely } from 'kysely';
import { insertLocation } from '../../src/locations/insert-location.js';
import type { Location } from '../../src/locations/location.js';
import type { Database } from '../../src/warehouse/schema.js';

/**
 * Cities the simulator has pollen for (species data in Europe, North America and Australia)
 * and weather everywhere, spread over climates and time zones.
 */
const CITIES: readonly (readonly [string, number, number, string])[] = [
  ['Berlin', 52.52, 13.405, 'DE'],
  ['Chicago', 41.8781, -87.6298, 'US'],
  ['Brisbane', -27.4698, 153.0251, 'AU'],
  ['Madrid', 40.4168, -3.7038, 'ES'],
  ['Toronto', 43.6532, -79.3832, 'CA'],
  ['Melbourne', -37.8136, 144.9631, 'AU'],
  ['Warsaw', 52.2297, 21.0122, 'PL'],
  ['Denver', 39.7392, -104.9903, 'US'],
  ['Paris', 48.8566, 2.3522, 'FR'],
  ['Los Angeles', 34.0522, -118.2437, 'US'],
  ['London', 51.5074, -0.1278, 'GB'],
  ['Sydney', -33.8688, 151.2093, 'AU'],
  ['Rome', 41.9028, 12.4964, 'IT'],
  ['New York', 40.7128, -74.006, 'US'],
  ['Stockholm', 59.3293, 18.0686, 'SE'],
  ['Vienna', 48.2082, 16.3738, 'AT'],
  ['Amsterdam', 52.3676, 4.9041, 'NL'],
  ['Zurich', 47.3769, 8.5417, 'CH'],
  ['Perth', -31.9523, 115.8613, 'AU'],
  ['Mexico City', 19.4326, -99.1332, 'MX'],
];

/** Registers `count` locations, cycling through the cities with a small offset per round. */
export async function addBenchLocations(db: Kysely<Database>, count: number): Promise<Location[]> {
  const locations: Location[] = [];
  for (let i = 0; i < count; i++) {
    const [name, lat, lng, countryCode] = CITIES[i % CITIES.length]!;
    const round = Math.floor(i / CITIES.length);
    locations.push(
      await insertLocation(db, {
        name: round === 0 ? name : `${name} ${round + 1}`,
        lat: lat + round * 0.05,
        lng: lng + round * 0.05,
        countryCode,
        registeredBy: 'coordinates',
      }),
    );
  }
  return locations;
}
