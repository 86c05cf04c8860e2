import type { PollenHour } from '../data/generate-pollen-hour.js';

/** What a `conflict` fault adds to each `Count` of the repeated hour. */
export const CONFLICT_COUNT_DELTA = 7;
/** What a `conflict` fault adds to each species count (and `Others`) of the repeated hour. */
export const CONFLICT_SPECIES_DELTA = 1;

/**
 * The hour a `conflict` fault repeats, with different values: every `Count` +7, every species
 * count and `Others` +1. The stamp is the same, so it is a second, disagreeing record of the
 * same hour; risks are derived from the new counts when it is rendered.
 */
export function conflictingPollenHour(hour: PollenHour): PollenHour {
  const [tree, grass, weed] = hour.counts;
  return {
    epochHour: hour.epochHour,
    counts: [
      tree + CONFLICT_COUNT_DELTA,
      grass + CONFLICT_COUNT_DELTA,
      weed + CONFLICT_COUNT_DELTA,
    ],
    speciesCounts: hour.speciesCounts.map((count) => count + CONFLICT_SPECIES_DELTA),
    others: hour.others + CONFLICT_SPECIES_DELTA,
  };
}
