import type { ShareUnit } from '../types.js';

/**
 * A share as a fraction in [0, 1], read in `unit` (the unit its whole answer was decided to be
 * in, `decideShareUnit`): a percentage is divided by 100. Returns `undefined` for a value that
 * is no share in that unit (negative, above 1 as a fraction, above 100 as a percentage).
 */
export function fractionOf(value: number, unit: ShareUnit): number | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const max = unit === 'percent' ? 100 : 1;
  if (value > max) return undefined;
  return unit === 'percent' ? value / 100 : value;
}
