import { usageError } from './usage-error.js';

/**
 * `--window 48h`, `12h`, `2d` or a bare number of hours → whole hours (at least one). Digits and
 * a unit only: no spaces, sign, fraction or exponent.
 */
export function parseWindowOption(value: string): number {
  const m = /^(\d+)([hd]?)$/i.exec(value);
  const hours = m ? Number(m[1]) * (m[2]?.toLowerCase() === 'd' ? 24 : 1) : NaN;
  if (!Number.isInteger(hours) || hours < 1) {
    throw usageError(
      `--window must be whole hours, at least 1h, such as 48h or 2d (got "${value}")`,
    );
  }
  if (hours > 24 * 366) throw usageError(`--window ${value} is longer than a year`);
  return hours;
}
