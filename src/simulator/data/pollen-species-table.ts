import type { PollenRegion, PollenType } from '../../types.js';

/** How one species behaves in the simulator: when it flowers and how much. */
export interface SpeciesProfile {
  /** As the service spells it: `Poplar / Cottonwood`, `Grass / Poaceae`. */
  readonly name: string;
  readonly type: PollenType;
  /** Peak of its season relative to its type's peak day, in days. */
  readonly offsetDays: number;
  /** Standard deviation of its season, in days. */
  readonly widthDays: number;
  /** Typical grains/m³ at the peak of its season, mid-afternoon of an average day. */
  readonly peak: number;
}

/**
 * Day of the year (northern hemisphere, 45° latitude) on which each type's season centres:
 * trees in spring, grass in early summer, weeds in late summer. Southern sites add half a year.
 */
export const TYPE_PEAK_DAY: Readonly<Record<PollenType, number>> = {
  tree: 105,
  grass: 165,
  weed: 235,
};

const s = (
  name: string,
  type: PollenType,
  offsetDays: number,
  widthDays: number,
  peak: number,
): SpeciesProfile => ({ name, type, offsetDays, widthDays, peak });

const GRASS = 'Grass / Poaceae';

/**
 * The species of each region, as in the interface's region table. `rest_of_world` has generic
 * stand-ins that drive its counts but are never sent (species data "may be missing" there);
 * `south_america_oceania` has no data at all (on request).
 */
export const POLLEN_SPECIES_BY_REGION: Readonly<Record<PollenRegion, readonly SpeciesProfile[]>> = {
  europe: [
    s('Hazel', 'tree', -60, 18, 80),
    s('Alder', 'tree', -50, 18, 120),
    s('Cypress', 'tree', -40, 25, 120),
    s('Elm', 'tree', -30, 12, 50),
    s('Poplar / Cottonwood', 'tree', -15, 12, 80),
    s('Birch', 'tree', 0, 12, 500),
    s('Plane', 'tree', 5, 10, 120),
    s('Oak', 'tree', 15, 14, 200),
    s('Pine', 'tree', 35, 15, 150),
    s(GRASS, 'grass', 0, 30, 140),
    s('Nettle', 'weed', -40, 40, 60),
    s('Mugwort', 'weed', -5, 12, 40),
    s('Chenopod', 'weed', 0, 20, 25),
    s('Ragweed', 'weed', 15, 12, 70),
  ],
  north_america: [
    s('Cypress / Juniper / Cedar', 'tree', -50, 25, 200),
    s('Elm', 'tree', -45, 15, 60),
    s('Maple', 'tree', -35, 14, 150),
    s('Poplar / Cottonwood', 'tree', -25, 12, 100),
    s('Ash', 'tree', -20, 12, 120),
    s('Birch', 'tree', -10, 12, 250),
    s('Oak', 'tree', 0, 16, 500),
    s('Mulberry', 'tree', 5, 12, 150),
    s('Pine', 'tree', 30, 15, 200),
    s(GRASS, 'grass', 0, 30, 120),
    s('Ragweed', 'weed', 10, 16, 120),
  ],
  australia_qld_nt: [
    s('Acacia', 'tree', -40, 30, 60),
    s('Cypress', 'tree', -30, 20, 50),
    s('Casuarina', 'tree', -20, 35, 60),
    s('Myrtaceae', 'tree', 0, 45, 80),
    s('Pine', 'tree', 10, 20, 50),
    s(GRASS, 'grass', 0, 50, 180),
    s('Plantago', 'weed', -20, 40, 25),
    s('Sedges', 'weed', -10, 40, 20),
    s('Chenopod', 'weed', 0, 40, 20),
    s('Aster', 'weed', 10, 30, 15),
  ],
  australia_nz_rest: [
    s('Alder', 'tree', -45, 15, 50),
    s('Acacia', 'tree', -40, 25, 60),
    s('Elm', 'tree', -40, 12, 40),
    s('Cypress', 'tree', -35, 20, 80),
    s('Willow', 'tree', -25, 12, 50),
    s('Casuarina', 'tree', -20, 30, 60),
    s('Birch', 'tree', -5, 12, 150),
    s('Myrtaceae', 'tree', 0, 35, 80),
    s('Oak', 'tree', 10, 14, 120),
    s('Pine', 'tree', 20, 15, 100),
    s('Olive', 'tree', 35, 12, 100),
    s(GRASS, 'grass', 0, 28, 200),
    s('Plantago', 'weed', -20, 30, 30),
    s('Sedges', 'weed', -10, 30, 15),
    s('Chenopod', 'weed', 0, 25, 20),
    s('Aster', 'weed', 5, 20, 15),
    s('Rumex', 'weed', 10, 20, 20),
  ],
  south_america_oceania: [],
  rest_of_world: [
    s('Tree', 'tree', 0, 30, 250),
    s('Grass', 'grass', 0, 35, 100),
    s('Weed', 'weed', 0, 25, 60),
  ],
};

/** Whether the service sends `Species` (and per-species risk) for a region. */
export function regionHasSpeciesData(region: PollenRegion): boolean {
  return region !== 'rest_of_world' && region !== 'south_america_oceania';
}
