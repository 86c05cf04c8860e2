import { distance } from 'geokdbush';
import { CLIMATE_ANCHORS } from './climate-anchors.js';
import type { ClimateAnchor } from './climate-normals.js';
import { zonalClimateOf } from './zonal-climate.js';

/** The climate of a point: what `climateAt` derives from its anchors. */
export type LocalClimate = Omit<ClimateAnchor, 'name' | 'lat' | 'lng'>;

/** How many of the nearest anchors a point's climate is drawn from. */
const NEAREST = 6;
/** Distance added to every anchor's, km: a point this close to an anchor has its climate. */
const SOFTENING_KM = 30;
/**
 * Weight of the zonal climate, as that of an anchor this far away: a point 1,200 km from its
 * nearest anchor gets half that anchor's departure from the zonal climate.
 */
const ZONAL_DISTANCE_KM = 1_200;

interface Departure {
  readonly lat: number;
  readonly lng: number;
  readonly januaryC: number;
  readonly julyC: number;
  /** ln(annual precipitation / the zonal one). */
  readonly precipitationLog: number;
  readonly seasonality: number;
}

/** What each anchor departs from the climate of its latitude. */
const DEPARTURES: readonly Departure[] = CLIMATE_ANCHORS.map((anchor) => {
  const zonal = zonalClimateOf(anchor.lat);
  return {
    lat: anchor.lat,
    lng: anchor.lng,
    januaryC: anchor.januaryMeanC - zonal.januaryMeanC,
    julyC: anchor.julyMeanC - zonal.julyMeanC,
    precipitationLog: Math.log(anchor.annualPrecipitationMm / zonal.annualPrecipitationMm),
    seasonality: anchor.precipitationSeasonality,
  };
});

/**
 * The climate of a point: the climate of its latitude (`zonalClimateOf`) plus the departures
 * from it of the nearest anchors (`CLIMATE_ANCHORS`), weighted by inverse squared distance.
 * Interpolating departures rather than values keeps the latitude's gradient between anchors
 * (a point north of Chicago is colder than Chicago); far from every anchor, over the oceans,
 * the departures fade into the zonal climate. Continentality comes from the anchors: Moscow's
 * and Chicago's cold winters, London's mild ones, Madrid's dry summers.
 *
 * At an anchor the result is the anchor's climate (within a few hundredths), so the cited
 * normals are reproduced where they were measured. The weights fall to zero as an anchor leaves
 * the nearest six, so the climate changes continuously from place to place.
 */
export function climateAt(lat: number, lng: number): LocalClimate {
  const nearest = nearestDepartures(lat, lng);
  const cutoff = nearest[NEAREST]?.weight ?? 0;
  let total = 1 / (ZONAL_DISTANCE_KM * ZONAL_DISTANCE_KM);
  let januaryC = 0;
  let julyC = 0;
  let precipitationLog = 0;
  let seasonality = 0;
  for (let i = 0; i < NEAREST && i < nearest.length; i++) {
    const entry = nearest[i];
    if (entry === undefined) break;
    const weight = entry.weight - cutoff;
    total += weight;
    januaryC += weight * entry.departure.januaryC;
    julyC += weight * entry.departure.julyC;
    precipitationLog += weight * entry.departure.precipitationLog;
    seasonality += weight * entry.departure.seasonality;
  }
  const zonal = zonalClimateOf(lat);
  return {
    januaryMeanC: zonal.januaryMeanC + januaryC / total,
    julyMeanC: zonal.julyMeanC + julyC / total,
    annualPrecipitationMm: zonal.annualPrecipitationMm * Math.exp(precipitationLog / total),
    precipitationSeasonality: seasonality / total,
  };
}

function nearestDepartures(lat: number, lng: number) {
  return DEPARTURES.map((departure) => {
    const km = distance(lng, lat, departure.lng, departure.lat);
    return { departure, weight: 1 / (km * km + SOFTENING_KM * SOFTENING_KM) };
  })
    .sort((a, b) => b.weight - a.weight)
    .slice(0, NEAREST + 1);
}
