import { BoundedCache } from './bounded-cache.js';
import { climateAt } from './climate-at.js';
import { unit3 } from './deterministic-hash.js';
import { siteKeyOf, type SiteKey } from './site-key.js';

/** The climate constants of one location, from its coordinates (`climateAt`) and its seed. */
export interface WeatherClimate extends SiteKey {
  /** Annual mean temperature, °C. */
  readonly meanTemperature: number;
  /** Half the difference between the warmest and coldest months' means, °C. */
  readonly seasonalAmplitude: number;
  /** Day of the year of the coldest weather. */
  readonly coldestDay: number;
  /** Half the day–night temperature swing under clear skies, °C. */
  readonly diurnalAmplitude: number;
  /** Scale of the day-to-day swings of temperature: larger where the seasons are. */
  readonly variability: number;
  /** 0 (dry) to 1 (wet): shifts cloud cover. */
  readonly wetness: number;
  /** Share of the hours of a year with precipitation. */
  readonly wetHourShare: number;
  /** Mean precipitation of a wet hour, mm. */
  readonly wetHourMeanMm: number;
  /** −1 (precipitation in winter only) to 1 (in summer only); see `ClimateAnchor`. */
  readonly precipitationSeasonality: number;
  /** Typical wind speed, m/s. */
  readonly windiness: number;
  /** Mean total column ozone, Dobson units. */
  readonly ozone: number;
}

const HOURS_PER_YEAR = 8765.82;
/**
 * A month's mean of a cosine season is this share of its peak: January's mean lies this much
 * closer to the annual mean than the coldest day does.
 */
const MONTH_MEAN_OF_PEAK = Math.sin(Math.PI / 12) / (Math.PI / 12);

const cache = new BoundedCache<string, WeatherClimate>(10_000);

/** The `WeatherClimate` of a coordinate pair (rounded to 4 decimals), cached per location. */
export function weatherClimateOf(lat: number, lng: number): WeatherClimate {
  const key = siteKeyOf(lat, lng);
  return cache.get(key.id, () => buildClimate(key));
}

function buildClimate(key: SiteKey): WeatherClimate {
  const u = (salt: number) => unit3(key.cellSeed, salt, 0xc11a);
  const climate = climateAt(key.lat, key.lng);
  const precipitation = climate.annualPrecipitationMm;
  const meanTemperature = (climate.januaryMeanC + climate.julyMeanC) / 2;
  const seasonalAmplitude =
    Math.abs(climate.julyMeanC - climate.januaryMeanC) / 2 / MONTH_MEAN_OF_PEAK;
  const wetness = 0.15 + 0.7 * clamp01(Math.log(precipitation / 80) / Math.log(40));
  // Gauges report precipitation in 5–10 % of the hours at mid-latitudes: more often where more
  // falls, less often (in heavier showers) where it is warm.
  const convective = clamp01((meanTemperature - 14) / 12);
  const wetHourShare = ((0.11 * precipitation) / (precipitation + 500)) * (1 - 0.35 * convective);
  return {
    ...key,
    meanTemperature,
    seasonalAmplitude,
    // Mid-January (north) or mid-July (south) when January is the warmer month.
    coldestDay: climate.januaryMeanC <= climate.julyMeanC ? 15.5 : 198.1,
    diurnalAmplitude: 2.5 + 4.5 * (1 - wetness) + u(3),
    variability: Math.min(1.4, Math.max(0.45, 0.4 + 0.05 * seasonalAmplitude)),
    wetness,
    wetHourShare,
    wetHourMeanMm: precipitation / (HOURS_PER_YEAR * wetHourShare),
    precipitationSeasonality: Math.max(-0.95, Math.min(0.95, climate.precipitationSeasonality)),
    windiness: 2 + 4 * u(5),
    ozone: 280 + 0.8 * Math.abs(key.lat) + 20 * u(6),
  };
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}
