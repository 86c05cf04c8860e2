import { BoundedCache } from './bounded-cache.js';
import { unit3 } from './deterministic-hash.js';
import { siteKeyOf, type SiteKey } from './site-key.js';

/** The climate constants of one location, from its latitude and its seed. */
export interface WeatherClimate extends SiteKey {
  /** Annual mean temperature, °C. */
  readonly meanTemperature: number;
  /** Half the difference between the warmest and coldest months, °C. */
  readonly seasonalAmplitude: number;
  /** Day of the year of the coldest weather. */
  readonly coldestDay: number;
  /** Half the day–night temperature swing under clear skies, °C. */
  readonly diurnalAmplitude: number;
  /** 0 (dry) to 1 (wet): shifts cloud cover and rain. */
  readonly wetness: number;
  /** Typical wind speed, m/s. */
  readonly windiness: number;
  /** Mean total column ozone, Dobson units. */
  readonly ozone: number;
}

const cache = new BoundedCache<string, WeatherClimate>(10_000);

/** The `WeatherClimate` of a coordinate pair (rounded to 4 decimals), cached per location. */
export function weatherClimateOf(lat: number, lng: number): WeatherClimate {
  const key = siteKeyOf(lat, lng);
  return cache.get(key.id, () => buildClimate(key));
}

function buildClimate(key: SiteKey): WeatherClimate {
  const absLat = Math.abs(key.lat);
  const u = (salt: number) => unit3(key.cellSeed, salt, 0xc11a);
  return {
    ...key,
    meanTemperature:
      27 - 0.42 * Math.max(0, absLat - 12) - 0.4 * Math.max(0, absLat - 60) + (u(1) - 0.5) * 4,
    seasonalAmplitude: Math.min(20, 0.2 * absLat) * (0.8 + 0.4 * u(2)) + 0.5,
    coldestDay: key.lat < 0 ? 200 : 18,
    diurnalAmplitude: 3 + 4 * u(3),
    wetness: 0.25 + 0.5 * u(4),
    windiness: 2 + 4 * u(5),
    ozone: 280 + 0.8 * absLat + 20 * u(6),
  };
}
