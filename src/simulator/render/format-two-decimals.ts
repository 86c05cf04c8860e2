/**
 * A number rounded to two decimals as the shortest JSON text, exactly as
 * `String(Math.round(value * 100) / 100)` writes it (`20.8`, `-3.05`, `1013`), but built from
 * integers: about twice as fast as formatting a double, which dominates rendering weather
 * records (17 numbers each).
 */
export function formatTwoDecimals(value: number): string {
  const cents = Math.round(value * 100);
  const abs = cents < 0 ? -cents : cents;
  const whole = Math.floor(abs / 100);
  const frac = abs - whole * 100;
  const decimals =
    frac === 0 ? '' : frac < 10 ? `.0${frac}` : frac % 10 === 0 ? `.${frac / 10}` : `.${frac}`;
  return `${cents < 0 ? '-' : ''}${whole}${decimals}`;
}
