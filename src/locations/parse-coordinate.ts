/**
 * A plain decimal as people write coordinates: digits with an optional leading `-` and an
 * optional fraction (`52.52`, `-0.1278`, `13`). No `+`, exponent (`1e1`), hex (`0x10`),
 * surrounding spaces, `Infinity` or bare `.5`: `Number()` accepts all of those, and a typo
 * among them would register a location somewhere else.
 */
export const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/** The two axes of a point and the magnitude each may reach. */
export const COORDINATE_LIMITS = { lat: 90, lng: 180 } as const;
export type CoordinateAxis = keyof typeof COORDINATE_LIMITS;

/** A coordinate read from text or JSON: its value, or why it is not one. */
export type ParsedCoordinate =
  { readonly ok: true; readonly value: number } | { readonly ok: false; readonly reason: string };

/**
 * Reads a latitude or longitude. Text must be a plain decimal (`PLAIN_DECIMAL`); a JSON number is
 * taken as it is. Either must lie within ±90 (lat) or ±180 (lng). The `reason` of a refusal
 * starts with "must", for the caller to prefix with the field or flag: `--lat must be …`; it
 * quotes the input unless `quote` is false (text the reader of the message must not see).
 *
 * @example parseCoordinate('lat', '0x10') // { ok: false, reason: 'must be a plain decimal …' }
 */
export function parseCoordinate(
  axis: CoordinateAxis,
  input: string | number,
  quote = true,
): ParsedCoordinate {
  const limit = COORDINATE_LIMITS[axis];
  const got = quote ? ` (got "${typeof input === 'number' ? String(input) : input}")` : '';
  if (typeof input === 'string' && !PLAIN_DECIMAL.test(input)) {
    return {
      ok: false,
      reason:
        `must be a plain decimal number such as ${axis === 'lat' ? '52.52' : '-0.1278'}${got}: ` +
        `digits with an optional "-" and decimal point, no spaces, "+", exponent or hex`,
    };
  }
  const value = typeof input === 'number' ? input : Number(input);
  if (!Number.isFinite(value) || Math.abs(value) > limit) {
    return { ok: false, reason: `must be a number in [-${limit}, ${limit}]${got}` };
  }
  return { ok: true, value };
}
