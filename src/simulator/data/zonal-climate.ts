/** The climate a latitude has on average: what `climateAt` falls back to far from its anchors. */
export interface ZonalClimate {
  /** Mean temperature of January, °C. */
  readonly januaryMeanC: number;
  /** Mean temperature of July, °C. */
  readonly julyMeanC: number;
  /** Precipitation of a year, mm. */
  readonly annualPrecipitationMm: number;
}

/**
 * Every 10° of latitude from the equator to the pole: the mean of the local winter and summer
 * months, °C, and of a year's precipitation, mm. Rounded from zonal means over land: wet near the
 * equator, dry in the subtropics, wetter again at mid-latitudes, dry near the poles.
 */
const WINTER_C = [26, 25, 20, 11, 3, -4, -12, -22, -30, -35];
const SUMMER_C = [26, 27, 28, 27, 24, 19, 16, 10, 3, 0];
const PRECIPITATION_MM = [2000, 1500, 700, 500, 700, 650, 500, 300, 150, 100];

/** The `ZonalClimate` of a latitude, interpolated linearly between the 10° rows. */
export function zonalClimateOf(lat: number): ZonalClimate {
  const x = Math.min(89.999, Math.abs(lat)) / 10;
  const i = Math.floor(x);
  const f = x - i;
  const at = (row: readonly number[]) => (row[i] ?? 0) * (1 - f) + (row[i + 1] ?? 0) * f;
  const winter = at(WINTER_C);
  const summer = at(SUMMER_C);
  return {
    januaryMeanC: lat >= 0 ? winter : summer,
    julyMeanC: lat >= 0 ? summer : winter,
    annualPrecipitationMm: at(PRECIPITATION_MM),
  };
}
