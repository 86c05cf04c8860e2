import type { ShareUnit } from '../types.js';

/**
 * The unit an answer's shares are written in, decided from all of them together: every share
 * field of every record of one answer (`values`), never one value alone. The service writes
 * humidity, cloud cover and precipitation probability as fractions (0–1) or as percentages
 * (0–100) and says not which; `1` is 100 % as a fraction and 1 % as a percentage.
 *
 * - A share above 1 (and at most 100) can only be a percentage: the answer is in `percent`.
 * - Otherwise every share is in [0, 1]. One strictly between 0 and 1 (0.65, or 0.004) reads as
 *   a fraction: as percentages, every share of the answer — humidity included, which almost
 *   never lies in 0–1 % — would be 1 % or less. The answer is in `fraction`.
 * - Otherwise every share is exactly 0 or 1, or there is none: the answer **cannot tell**, and
 *   `undefined` is returned. It must not be guessed (a dry, clear day in percentages sends
 *   nothing but 0 and 1); the caller takes the unit of earlier answers, or sets the shares aside.
 *
 * Values that are no share in either unit (negative, above 100, not finite) take no part: the
 * record carrying them is refused on its own.
 *
 * @example decideShareUnit([0, 1, 81]) // 'percent'
 * @example decideShareUnit([0, 1, 0.81]) // 'fraction'
 * @example decideShareUnit([0, 1, 1, 0]) // undefined: cannot tell
 */
export function decideShareUnit(values: Iterable<number | undefined>): ShareUnit | undefined {
  let betweenZeroAndOne = false;
  for (const value of values) {
    if (value === undefined || !Number.isFinite(value) || value < 0 || value > 100) continue;
    if (value > 1) return 'percent';
    if (value > 0 && value < 1) betweenZeroAndOne = true;
  }
  return betweenZeroAndOne ? 'fraction' : undefined;
}
