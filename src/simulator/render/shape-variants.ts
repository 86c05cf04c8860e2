/**
 * The response variants the service has been recorded sending (upstream spec, marks [one] and
 * [open]). The simulator sends the current shape unless told to send older or other ones, so
 * the client can be proven on each over HTTP.
 */
export interface ShapeVariants {
  /** `"message": "Success"` instead of `"success"`. */
  readonly capitalSuccess: boolean;
  /** Pollen history and forecast records stamped with ISO `timestamp` instead of epoch `time`. */
  readonly isoTimestamp: boolean;
  /** Weather history enveloped in `message` instead of `status`. */
  readonly swappedEnvelopes: boolean;
  /** Weather history and forecast `data` as a bare array of records. */
  readonly bareArrays: boolean;
  /** `lat` / `lng` of envelopes, weather `data` and geocoding matches as strings. */
  readonly stringCoordinates: boolean;
  /** Pollen records without `Species` (older records). */
  readonly noSpecies: boolean;
  /** Pollen records without `timezone` (older records). */
  readonly noTimezone: boolean;
  /**
   * Latest readings (pollen `/latest/pollen/by-*`, weather `/weather/latest/by-lat-lng`) sent
   * without any stamp key: no `updatedAt` on pollen, no `time` on weather. Not a recorded shape
   * but one envdata must survive (it stamps such a reading with the hour it fetched it in), so
   * `all` leaves it off: name it (`no-latest-stamp`) to turn it on.
   */
  readonly noLatestStamp: boolean;
  /**
   * Weather `humidity`, `cloudCover` and `precipProbability` as whole percentages (0–100)
   * instead of fractions, in every record of every weather answer.
   */
  readonly percentages: boolean;
  /** Key of the per-species risk object sent for `speciesRisk=true`. */
  readonly speciesRiskKey: 'SpeciesRisk' | 'Risks';
}

/** What the service sends today. */
export const CURRENT_SHAPES: ShapeVariants = Object.freeze({
  capitalSuccess: false,
  isoTimestamp: false,
  swappedEnvelopes: false,
  bareArrays: false,
  stringCoordinates: false,
  noSpecies: false,
  noTimezone: false,
  noLatestStamp: false,
  percentages: false,
  speciesRiskKey: 'SpeciesRisk',
});

/** Every older or alternative variant at once (`noLatestStamp` aside: see there). */
export const LEGACY_SHAPES: ShapeVariants = Object.freeze({
  capitalSuccess: true,
  isoTimestamp: true,
  swappedEnvelopes: true,
  bareArrays: true,
  stringCoordinates: true,
  noSpecies: true,
  noTimezone: true,
  noLatestStamp: false,
  percentages: true,
  speciesRiskKey: 'Risks',
});

/** The boolean variants by the names `ENVDATA_SIM_LEGACY_SHAPES` lists them with. */
export const SHAPE_VARIANT_NAMES = {
  'capital-success': 'capitalSuccess',
  'iso-timestamp': 'isoTimestamp',
  'swapped-envelopes': 'swappedEnvelopes',
  'bare-arrays': 'bareArrays',
  'string-coordinates': 'stringCoordinates',
  'no-species': 'noSpecies',
  'no-timezone': 'noTimezone',
  'no-latest-stamp': 'noLatestStamp',
  percentages: 'percentages',
  'risks-key': 'speciesRiskKey',
} as const satisfies Record<string, keyof ShapeVariants>;

/**
 * The variants to send: `false` → current, `true` → all legacy, an object → current with those
 * variants switched.
 */
export function resolveShapes(legacy: boolean | Partial<ShapeVariants>): ShapeVariants {
  if (legacy === true) return LEGACY_SHAPES;
  if (legacy === false) return CURRENT_SHAPES;
  return Object.freeze({ ...CURRENT_SHAPES, ...legacy });
}
