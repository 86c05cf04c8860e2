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
  /**
   * Weather `humidity` as a whole percentage while `cloudCover` and `precipProbability` stay
   * fractions, in every weather answer: the units the recorded bodies mix (a documented record
   * sends humidity 81 beside cloud cover 0.83 and precipitation probability 0.02; a live capture
   * humidity 92 beside cloud cover 1, overcast). Overcast hours send cloud cover exactly 1 and
   * dry hours precipitation probability 0, so some answers cannot tell a field's unit.
   *
   * Units are per field: a field is a percentage when any variant naming it is on
   * (`percentages` names all three), so `percentages` wins over this one.
   */
  readonly unitsPerField: boolean;
  /**
   * Weather `precipProbability` as a whole percentage while `humidity` and `cloudCover` stay
   * fractions: another split (a synthetic fixture sends precipitation probability 58), so that
   * no reader passes by knowing which field is the percentage. With `unitsPerField`, humidity
   * and precipitation probability are percentages and cloud cover a fraction.
   */
  readonly precipPercent: boolean;
  /**
   * Latest readings stamped to the second of the request, off the hour, as 2021 bodies are
   * (pollen `updatedAt` `2021-05-08T11:14:38.000Z`; weather latest `time` 1681008995) instead of
   * on the hour (pollen, 2024 bodies) or to the minute (weather).
   */
  readonly offHourStamps: boolean;
  /**
   * Record keys in the orders the recorded bodies show rather than the simulator's own: pollen
   * `time, timezone, Species, Risk, Count` then `updatedAt`/`createdAt` (2024 bodies), weather in
   * the Dark-Sky order of the documented examples (`time, precipIntensity, precipProbability,
   * precipType, temperature, …, ozone`) with the latest reading's `lat`/`lng` last.
   */
  readonly recordedKeyOrder: boolean;
  /**
   * `/` in species names written `\/` (`"Grass \/ Poaceae"`), as bodies re-encoded by PHP are:
   * valid JSON for the same name, so only a reader that matches text would see a difference.
   */
  readonly escapedSlashes: boolean;
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
  unitsPerField: false,
  precipPercent: false,
  offHourStamps: false,
  recordedKeyOrder: false,
  escapedSlashes: false,
  speciesRiskKey: 'SpeciesRisk',
});

/**
 * Every older or alternative variant at once (`noLatestStamp` aside: see there). Its weather
 * shares are all percentages: `percentages` wins over `unitsPerField` and `precipPercent`, which
 * `all` turns on but cannot show; name them without `percentages` to get units per field.
 */
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
  unitsPerField: true,
  precipPercent: true,
  offHourStamps: true,
  recordedKeyOrder: true,
  escapedSlashes: true,
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
  'units-per-field': 'unitsPerField',
  'precip-percent': 'precipPercent',
  'off-hour-stamps': 'offHourStamps',
  'recorded-key-order': 'recordedKeyOrder',
  'escaped-slashes': 'escapedSlashes',
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

/** Which weather share fields an answer writes as whole percentages (the rest as fractions). */
export interface PercentShares {
  readonly humidity: boolean;
  readonly cloudCover: boolean;
  readonly precipProbability: boolean;
}

/** The share fields `shapes` writes as percentages: any variant naming a field makes it one. */
export function percentSharesOf(shapes: ShapeVariants): PercentShares {
  return {
    humidity: shapes.percentages || shapes.unitsPerField,
    cloudCover: shapes.percentages,
    precipProbability: shapes.percentages || shapes.precipPercent,
  };
}
