import type { ShareUnit } from '../types.js';

/**
 * What one answer's shares say of their unit: `fraction` or `percent`, or that the answer
 * `cannot-tell` (every share 0 or 1, or none), or that it is `contradictory` (written in both).
 */
export type ShareUnitVerdict = ShareUnit | 'cannot-tell' | 'contradictory';

/**
 * The unit an answer's shares are written in, decided from all of them together: every share
 * field of every record of one answer (`values`), never one value alone. The service writes
 * humidity, cloud cover and precipitation probability as fractions (0–1) or as percentages
 * (0–100) and says not which; `1` is 100 % as a fraction and 1 % as a percentage.
 *
 * - A share above 1 (and at most 100) can only be a percentage; one strictly between 0 and 1
 *   (0.65, or 0.004) is a fraction, since as percentages every share of such an answer —
 *   humidity included, which almost never lies in 0–1 % — would be 1 % or less.
 * - Only shares above 1: `percent`, its 0s and 1s included. Only shares strictly between 0 and
 *   1: `fraction`, its 0s and 1s included.
 * - Both: `contradictory`. The service writes one unit per answer, so one of them is wrong and
 *   no reading of the answer is safe (whole percentages never fall strictly between 0 and 1).
 * - Neither (every share exactly 0 or 1, or none): `cannot-tell`. It must not be guessed (a dry,
 *   clear day in percentages sends nothing but 0 and 1); the caller takes the unit of earlier
 *   answers, or sets the shares aside.
 *
 * Values that are no share in either unit (negative, above 100, not finite) take no part: the
 * record carrying them is refused on its own.
 *
 * @example decideShareUnit([0, 1, 81]) // 'percent'
 * @example decideShareUnit([0, 1, 0.81]) // 'fraction'
 * @example decideShareUnit([0, 1, 1, 0]) // 'cannot-tell'
 * @example decideShareUnit([0.81, 40]) // 'contradictory'
 */
export function decideShareUnit(values: Iterable<number | undefined>): ShareUnitVerdict {
  let aboveOne = false;
  let betweenZeroAndOne = false;
  for (const value of values) {
    if (value === undefined || !Number.isFinite(value) || value < 0 || value > 100) continue;
    if (value > 1) aboveOne = true;
    else if (value > 0 && value < 1) betweenZeroAndOne = true;
  }
  if (aboveOne) return betweenZeroAndOne ? 'contradictory' : 'percent';
  return betweenZeroAndOne ? 'fraction' : 'cannot-tell';
}
