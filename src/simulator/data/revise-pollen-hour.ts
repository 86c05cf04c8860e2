import type { PollenHour } from './generate-pollen-hour.js';
import type { PollenSite } from './pollen-site.js';

/**
 * The revised counts of a pollen hour (`ReviseOption`): every species count 15 % higher (at least
 * 1 more) and each type's `Count` raised by as much as its species together, so it stays off
 * their sum by what it was; `Species.Others` as it was. Counts stay whole and non-negative.
 */
export function revisePollenHour(site: PollenSite, hour: PollenHour): PollenHour {
  const rise = [0, 0, 0];
  const speciesCounts = hour.speciesCounts.map((count, i) => {
    const more = Math.max(1, Math.round(count * 0.15));
    rise[site.species[i]!.typeIndex]! += more;
    return count + more;
  });
  const [tree, grass, weed] = hour.counts;
  return {
    ...hour,
    counts: [tree + rise[0]!, grass + rise[1]!, weed + rise[2]!],
    speciesCounts,
  };
}
