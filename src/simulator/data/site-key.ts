import { hash3 } from './deterministic-hash.js';

/**
 * A location as the simulator keys it: coordinates rounded to 4 decimals (about 11 m, the
 * precision clients send), a seed for the values of that exact place, and a seed for its
 * quarter-degree cell so that neighbouring places share their weather.
 */
export interface SiteKey {
  readonly lat: number;
  readonly lng: number;
  /** `lat`/`lng` ×10⁴ as integers. */
  readonly lat4: number;
  readonly lng4: number;
  readonly seed: number;
  readonly cellSeed: number;
  /** `"lat4,lng4"`, for caches. */
  readonly id: string;
}

/** The `SiteKey` of a coordinate pair. */
export function siteKeyOf(lat: number, lng: number): SiteKey {
  const lat4 = Math.round(lat * 1e4);
  const lng4 = Math.round(lng * 1e4);
  return {
    lat: lat4 / 1e4,
    lng: lng4 / 1e4,
    lat4,
    lng4,
    seed: hash3(lat4, lng4, 0x51e5eed),
    cellSeed: hash3(Math.round(lat * 4), Math.round(lng * 4), 0xce11),
    id: `${lat4},${lng4}`,
  };
}
