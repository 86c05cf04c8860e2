import tzLookup from 'tz-lookup';

/**
 * The IANA time zone of a point (`52.52, 13.405` → `Europe/Berlin`), from the compact
 * `tz-lookup` map; over open sea a nautical zone such as `Etc/GMT+10`. Throws a `RangeError`
 * for coordinates outside [-90, 90] × [-180, 180].
 */
export function timezoneOf(lat: number, lng: number): string {
  if (!(lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180)) {
    throw new RangeError(`Coordinates ${lat}, ${lng} are outside [-90, 90] × [-180, 180]`);
  }
  return tzLookup(lat, lng);
}
