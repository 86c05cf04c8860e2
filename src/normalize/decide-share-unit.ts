import type { ShareField, ShareUnit, ShareUnits } from '../types.js';

/**
 * What one field's values in one answer say of their unit: `fraction` or `percent`; that they
 * `cannot-tell` (every value 0 or 1, at least one 1); that they are `contradictory` (written in
 * both); or `only-zeros` (every value 0, or none: 0 is 0 in both units, nothing to decide).
 */
export type ShareUnitVerdict = ShareUnit | 'cannot-tell' | 'contradictory' | 'only-zeros';

/** A verdict per share field of one answer. */
export type ShareUnitVerdicts = Readonly<Record<ShareField, ShareUnitVerdict>>;

/**
 * The unit one share field of one answer is written in, decided from every value of that field
 * in the answer (`values`), never from one value alone and never from the other fields: the
 * service writes each of humidity, cloud cover and precipitation probability as a fraction
 * (0–1) or a percentage (0–100), field by field (a recorded answer sends humidity 81 beside
 * cloud cover 0.83), and says not which; `1` is 100 % as a fraction and 1 % as a percentage.
 *
 * - A value above 1 (and at most 100) can only be a percentage; one strictly between 0 and 1
 *   is a fraction (whole percentages never fall there).
 * - Only values above 1: `percent`, its 0s and 1s included. Only values strictly between 0 and
 *   1: `fraction`, its 0s and 1s included.
 * - Both: `contradictory`: one of them is wrong and no reading of the field is safe.
 * - Neither, with a 1 among them (every value exactly 0 or 1): `cannot-tell`. It must not be
 *   guessed (a dry day in percentages sends nothing but 0 and 1); the caller takes the unit
 *   this field last had from the same source, or sets the field's 1s aside.
 * - Only 0s, or no value: `only-zeros`. A 0 is 0 in both units: it lands as 0, and teaches and
 *   needs nothing.
 *
 * Values that are no share in either unit (negative, above 100, not finite) take no part: the
 * record carrying them is refused on its own.
 *
 * @example decideShareUnit([0, 1, 81]) // 'percent'
 * @example decideShareUnit([0, 1, 0.81]) // 'fraction'
 * @example decideShareUnit([0, 1, 1, 0]) // 'cannot-tell'
 * @example decideShareUnit([0, 0]) // 'only-zeros'
 * @example decideShareUnit([0.81, 40]) // 'contradictory'
 */
export function decideShareUnit(values: Iterable<number | undefined>): ShareUnitVerdict {
  let aboveOne = false;
  let betweenZeroAndOne = false;
  let one = false;
  for (const value of values) {
    if (value === undefined || !Number.isFinite(value) || value < 0 || value > 100) continue;
    if (value > 1) aboveOne = true;
    else if (value > 0 && value < 1) betweenZeroAndOne = true;
    else if (value === 1) one = true;
  }
  if (aboveOne) return betweenZeroAndOne ? 'contradictory' : 'percent';
  if (betweenZeroAndOne) return 'fraction';
  return one ? 'cannot-tell' : 'only-zeros';
}

/** The units `verdicts` tell by themselves (`fraction` or `percent`), field by field. */
export function toldShareUnits(verdicts: ShareUnitVerdicts): ShareUnits {
  const told: Partial<Record<ShareField, ShareUnit>> = {};
  for (const [field, verdict] of Object.entries(verdicts) as [ShareField, ShareUnitVerdict][]) {
    if (verdict === 'fraction' || verdict === 'percent') told[field] = verdict;
  }
  return told;
}

/**
 * The unit to read each field of an answer in: the unit its values tell, else (when they
 * cannot tell) the unit `remembered` holds for that field; a contradictory field has none.
 */
export function resolveShareUnits(
  verdicts: ShareUnitVerdicts,
  remembered: ShareUnits = {},
): ShareUnits {
  const units: Partial<Record<ShareField, ShareUnit>> = {};
  for (const [field, verdict] of Object.entries(verdicts) as [ShareField, ShareUnitVerdict][]) {
    const unit =
      verdict === 'cannot-tell'
        ? remembered[field]
        : verdict === 'fraction' || verdict === 'percent'
          ? verdict
          : undefined;
    if (unit !== undefined) units[field] = unit;
  }
  return units;
}
