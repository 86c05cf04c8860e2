/**
 * A share as a fraction in [0, 1]. Sources disagree whether humidity, cloud cover and
 * precipitation probability are fractions or percentages: a value above 1 is read as percent.
 * Returns `undefined` for a value that is neither (negative, or above 100).
 */
export function fractionOf(value: number): number | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  if (value <= 1) return value;
  if (value <= 100) return value / 100;
  return undefined;
}
