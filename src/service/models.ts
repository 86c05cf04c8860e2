import type { PollenType, RiskLevel } from '../types.js';

/**
 * What the service client returns after parsing: every upstream shape variant
 * (docs: ../shared/spec/upstream-responses.md) is folded into these. Values are kept exactly as
 * sent; unit conversions and mapping to fact rows happen in each dataset's normalizer
 * (`src/datasets/<name>/normalize-<name>.ts`).
 */

/** A record the parser could not accept, kept for quarantine with the reason. */
export interface RejectedRecord {
  /** Position in the payload's record array. */
  readonly index: number;
  readonly raw: unknown;
  readonly reason: string;
  /**
   * The instant the record was for, when its stamp is readable although the record is not (a
   * wrong field, a stamp in milliseconds): its hour is then quarantined, not missing upstream.
   * `undefined` for an unplaceable record (not an object, no stamp, an unreadable one).
   */
  readonly at?: Date | undefined;
}

export interface PollenSpeciesCount {
  readonly category: PollenType;
  /** As sent, spaces and slashes included: `Poplar / Cottonwood`. */
  readonly name: string;
  readonly count: number;
}

export interface PollenRecord {
  /** The record's instant, UTC: from `time` (epoch s), `timestamp`, `updatedAt` or `createdAt`. */
  readonly at: Date;
  /**
   * Set on a latest reading the service sent without any stamp: `at` is then the start of the
   * hour the sync fetched it in (`stampAtFetch`), not the service's word. Absent otherwise.
   */
  readonly stampedAtFetch?: true;
  readonly timezone: string | undefined;
  /** `Count.tree_pollen` etc.; a missing type is absent, not zero. */
  readonly counts: Readonly<Partial<Record<PollenType, number>>>;
  readonly risks: Readonly<Partial<Record<PollenType, RiskLevel>>>;
  /** `undefined` when the record has no `Species` at all (older records, uncovered regions). */
  readonly species: readonly PollenSpeciesCount[] | undefined;
  /** `Species.Others`, a bare integer; `undefined` when absent. */
  readonly othersCount: number | undefined;
  /** Per-species risk (`SpeciesRisk` / `Risks`), species name → level; `undefined` when absent. */
  readonly speciesRisk: Readonly<Record<string, RiskLevel>> | undefined;
}

export interface WeatherRecord {
  readonly at: Date;
  /**
   * Set on a latest reading the service sent without any stamp: `at` is then the start of the
   * hour the sync fetched it in (`stampAtFetch`), not the service's word. Absent otherwise.
   */
  readonly stampedAtFetch?: true;
  readonly temperature: number | undefined;
  readonly apparentTemperature: number | undefined;
  readonly dewPoint: number | undefined;
  /** As sent: a fraction (0–1) or, from some sources, a percentage. */
  readonly humidity: number | undefined;
  readonly pressure: number | undefined;
  readonly windSpeed: number | undefined;
  readonly windGust: number | undefined;
  readonly windBearing: number | undefined;
  /** As sent: a fraction (0–1) or a percentage. */
  readonly cloudCover: number | undefined;
  readonly visibility: number | undefined;
  readonly uvIndex: number | undefined;
  readonly ozone: number | undefined;
  readonly precipIntensity: number | undefined;
  readonly precipProbability: number | undefined;
  readonly precipType: string | undefined;
  readonly summary: string | undefined;
  /** As sent, suffix included: `partly-cloudy-day`. */
  readonly icon: string | undefined;
}

/**
 * A latest reading as the client parses it (`/latest/pollen/by-*`, `/weather/latest/by-lat-lng`):
 * `at` is `undefined` when the service sent it without any stamp. Such a reading is kept, where a
 * history or forecast record without one is refused (the hour it is for cannot be guessed): a
 * latest reading is the reading of the hour it was asked in, and the sync stamps it with that
 * hour (`stampAtFetch`). A stamp that is present but unreadable still refuses the record.
 */
export type LatestRecord<TRecord extends { readonly at: Date }> = Omit<TRecord, 'at'> & {
  readonly at: Date | undefined;
};

export interface GeocodeMatch {
  readonly lat: number;
  readonly lng: number;
  readonly label: string | undefined;
  readonly countryCode: string | undefined;
  readonly countryName: string | undefined;
  readonly state: string | undefined;
  readonly city: string | undefined;
  readonly postalCode: string | undefined;
}

/** A parsed response: valid records, rejected ones, the payload's coordinates and the raw body. */
export interface ParsedPayload<TRecord> {
  readonly lat: number | undefined;
  readonly lng: number | undefined;
  readonly records: readonly TRecord[];
  readonly rejected: readonly RejectedRecord[];
  /** The exact body received, for the raw payload archive and for `envdata rebuild`. */
  readonly rawBody: string;
  /** The endpoint path it answered (no query: never the key); none for an archived body. */
  readonly endpoint?: string | undefined;
  /**
   * The body as `JSON.parse` read it, for the answer's shape (`src/upstream`): read once, never
   * changed. Absent on a payload with no readable body (an unreadable `206`).
   */
  readonly document?: unknown;
}

export type PollenPayload = ParsedPayload<PollenRecord>;
export type WeatherPayload = ParsedPayload<WeatherRecord>;
export type GeocodePayload = ParsedPayload<GeocodeMatch>;
/** A latest pollen answer as parsed: a reading may have no stamp yet (`LatestRecord`). */
export type LatestPollenPayload = ParsedPayload<LatestRecord<PollenRecord>>;
/** A latest weather answer as parsed: its reading may have no stamp yet (`LatestRecord`). */
export type LatestWeatherPayload = ParsedPayload<LatestRecord<WeatherRecord>>;

/**
 * What a history method returns: the payload, and whether it is all the service meant to send.
 * `complete: false` is a `206` answer, trimmed when the quota ran out mid-response: the records
 * received are kept (a truncated body is salvaged up to its last complete record, possibly
 * zero), and the window must be asked for again.
 */
export type HistoryPayload<TPayload extends ParsedPayload<unknown>> = TPayload & {
  readonly complete: boolean;
};
