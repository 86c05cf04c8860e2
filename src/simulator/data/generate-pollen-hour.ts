import { hash3, smoothNoise, unit3 } from './deterministic-hash.js';
import type { PollenSite } from './pollen-site.js';
import { dayDistance, dayOfYear, solarHour } from './time-math.js';

/** The pollen of one site in one hour, as numbers; rendering turns it into a record. */
export interface PollenHour {
  readonly epochHour: number;
  /** `Count` per type, in `POLLEN_TYPES` order (tree, grass, weed). */
  readonly counts: readonly [number, number, number];
  /** Per species, aligned with `site.species`. */
  readonly speciesCounts: readonly number[];
  /** `Species.Others`. */
  readonly others: number;
}

const SALT_DAY = 0xd0;
const SALT_HOUR = 0x40;
const SALT_SPECIES = 0x5eed;
const SALT_DELTA = 0xde17a;
const SALT_OTHERS = 0x07e5;

/**
 * Generates one hour of pollen for a site: each species follows its season (a Gaussian around
 * its peak day), scaled by a day-to-day factor shared by the site's quarter-degree cell (the
 * weather), by the time of day (peaking mid-afternoon, solar time) and by hourly noise. `Count`
 * per type is the species sum off by up to three units, as the service's records are.
 *
 * `scale` multiplies every count (forecast error); 1 for observations.
 */
export function generatePollenHour(site: PollenSite, epochHour: number, scale = 1): PollenHour {
  const doy = dayOfYear(epochHour);
  const d = (solarHour(epochHour, site.lng) - 14) / 4.5;
  const diurnal = (0.35 + 0.65 * Math.exp(-d * d)) * scale;
  const factor0 = typeFactor(site, epochHour, 0, diurnal);
  const factor1 = typeFactor(site, epochHour, 1, diurnal);
  const factor2 = typeFactor(site, epochHour, 2, diurnal);
  const sums = [0, 0, 0];
  const speciesCounts: number[] = new Array<number>(site.species.length);
  for (let i = 0; i < site.species.length; i++) {
    const species = site.species[i]!;
    const z = dayDistance(doy, species.peakDay) / species.widthDays;
    // Beyond six widths the season is over: skip the exponential (most species, most hours).
    const season = z > 6 ? 0.004 : Math.exp(-0.5 * z * z) + 0.004;
    const factor = species.typeIndex === 0 ? factor0 : species.typeIndex === 1 ? factor1 : factor2;
    const noise = 0.9 + 0.2 * unit3(species.salt, epochHour, SALT_SPECIES);
    const count = Math.round(species.amplitude * season * factor * noise);
    speciesCounts[i] = count;
    sums[species.typeIndex]! += count;
  }
  const counts: [number, number, number] = [
    offByAFew(site.seed, epochHour, 0, sums[0]!),
    offByAFew(site.seed, epochHour, 1, sums[1]!),
    offByAFew(site.seed, epochHour, 2, sums[2]!),
  ];
  const total = sums[0]! + sums[1]! + sums[2]!;
  const others = Math.round(total * 0.03 * unit3(site.seed, epochHour, SALT_OTHERS));
  return { epochHour, counts, speciesCounts, others };
}

function typeFactor(site: PollenSite, epochHour: number, type: number, diurnal: number): number {
  const day = 0.2 + 1.4 * smoothNoise(site.cellSeed, SALT_DAY + type, epochHour, 26);
  const hour = 0.85 + 0.3 * unit3(site.seed, epochHour, SALT_HOUR + type);
  return day * hour * diurnal;
}

function offByAFew(seed: number, epochHour: number, type: number, sum: number): number {
  if (sum < 4) return sum;
  const delta = (hash3(seed, epochHour, SALT_DELTA + type) % 7) - 3;
  return sum + delta;
}
