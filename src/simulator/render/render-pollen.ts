import { hash3 } from '../data/deterministic-hash.js';
import type { PollenHour } from '../data/generate-pollen-hour.js';
import { pollenRiskOf } from '../data/pollen-risk.js';
import type { PollenSite } from '../data/pollen-site.js';
import { HOUR_S, isoOfEpochSeconds } from '../data/time-math.js';
import type { ShapeVariants } from './shape-variants.js';
import { successMessage } from './success-message.js';

/**
 * How a pollen record is stamped:
 * - `latest`: `updatedAt` (ISO).
 * - `history`: `time` (epoch s) and `createdAt` (ISO, some minutes after the hour).
 * - `forecast`: `time`.
 * - `forecast-120hr`: `time` and `updatedAt` (the same instant).
 * With `isoTimestamp`, `time`/`createdAt` give way to one ISO `timestamp`; with `noLatestStamp`,
 * a `latest` record has no stamp at all; with `offHourStamps`, a `latest` record's `updatedAt`
 * is the second of the request rather than its hour.
 */
export type PollenStamp = 'latest' | 'history' | 'forecast' | 'forecast-120hr';

const SALT_CREATED = 0xc4ea7ed;

/**
 * One pollen record as the service sends it, as JSON text:
 * `{"time", "timezone", "Count", "Risk", "Species", "SpeciesRisk"?, "createdAt"}`, or with
 * `recordedKeyOrder` `{"time", "timezone", "Species", "SpeciesRisk"?, "Risk", "Count",
 * "createdAt"}` (the order of the 2024 bodies). `requestS`, the second of the request: the stamp
 * of a `latest` record with `offHourStamps`.
 *
 * Records are written as text rather than through `JSON.stringify` because history answers are
 * the simulator's hot path: this halves the time per 48-hour answer. Every value written is a
 * number or a string made by `JSON.stringify`, so the text is valid JSON (the tests parse it).
 */
export function renderPollenRecord(
  site: PollenSite,
  hour: PollenHour,
  stamp: PollenStamp,
  shapes: ShapeVariants,
  speciesRisk: boolean,
  requestS?: number,
): string {
  const time = hour.epochHour * HOUR_S;
  const [tree, grass, weed] = hour.counts;
  const iso = shapes.isoTimestamp && stamp !== 'latest' ? isoOfEpochSeconds(time) : undefined;
  let json = '{';
  if (iso !== undefined) json += `"timestamp":"${iso}",`;
  else if (stamp !== 'latest') json += `"time":${time},`;
  if (!shapes.noTimezone) json += `"timezone":${site.timezoneJson},`;
  const count = `"Count":{"grass_pollen":${grass},"tree_pollen":${tree},"weed_pollen":${weed}}`;
  const risk = `"Risk":{"grass_pollen":"${pollenRiskOf('grass', grass)}","tree_pollen":"${pollenRiskOf('tree', tree)}","weed_pollen":"${pollenRiskOf('weed', weed)}"}`;
  const species =
    site.withSpecies && !shapes.noSpecies ? speciesJson(site, hour, shapes, speciesRisk) : '';
  if (shapes.recordedKeyOrder) json += `${species}${species && ','}${risk},${count}`;
  else json += `${count},${risk}${species && ','}${species}`;
  if (stamp === 'latest' && !shapes.noLatestStamp) {
    const at = shapes.offHourStamps && requestS !== undefined ? requestS : time;
    json += `,"updatedAt":"${isoOfEpochSeconds(at)}"`;
  } else if (stamp === 'forecast-120hr') {
    json += `,"updatedAt":"${iso ?? isoOfEpochSeconds(time)}"`;
  } else if (stamp === 'history' && iso === undefined) {
    const created = time + 300 + (hash3(site.seed, time, SALT_CREATED) % 2400);
    json += `,"createdAt":"${isoOfEpochSeconds(created)}"`;
  }
  return `${json}}`;
}

/** `"Species":{…}`, and `"SpeciesRisk":{…}` (or `Risks`) after it when asked for. */
function speciesJson(
  site: PollenSite,
  hour: PollenHour,
  shapes: ShapeVariants,
  speciesRisk: boolean,
): string {
  const groups = ['', '', ''];
  let risks = '';
  for (let i = 0; i < site.species.length; i++) {
    const species = site.species[i]!;
    const key = shapes.escapedSlashes ? species.jsonKeyEscaped : species.jsonKey;
    const count = hour.speciesCounts[i]!;
    const t = species.typeIndex;
    groups[t] += `${groups[t] === '' ? '' : ','}${key}${count}`;
    if (speciesRisk) {
      risks += `${risks === '' ? '' : ','}${key}"${pollenRiskOf(species.type, count)}"`;
    }
  }
  const json = `"Species":{"Grass":{${groups[1]}},"Others":${hour.others},"Tree":{${groups[0]}},"Weed":{${groups[2]}}}`;
  return speciesRisk ? `${json},"${shapes.speciesRiskKey}":{${risks}}` : json;
}

/** The pollen envelope: `{"message": "success", "lat": …, "lng": …, "data": [records]}`. */
export function renderPollenBody(
  lat: number,
  lng: number,
  records: readonly string[],
  shapes: ShapeVariants,
): string {
  const la = shapes.stringCoordinates ? `"${lat}"` : `${lat}`;
  const ln = shapes.stringCoordinates ? `"${lng}"` : `${lng}`;
  return `{"message":"${successMessage(shapes)}","lat":${la},"lng":${ln},"data":[${records.join(',')}]}`;
}
