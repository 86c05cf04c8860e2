/**
 * The vocabulary of envdata. Every module uses these words the same way (docs/architecture.md).
 *
 * - **location**: a point we ingest for: name, coordinates, country, IANA time zone, pollen region.
 * - **dataset**: what is ingested for a location: `pollen` or `weather` history (one definition
 *   each in `src/datasets/`).
 * - **window**: a half-open UTC interval `[from, to)` aligned to whole hours.
 * - **chunk**: one dataset × location × window: one history request to the service.
 * - **run**: one backfill or sync: the set of chunks it planned.
 * - **ledger**: the Postgres tables of runs and chunks; the truth about what has been ingested.
 * - **raw payload**: the body the service sent for a chunk, archived compressed.
 * - **fact row**: one normalized row of the warehouse (location, hour, type/species/attribute).
 * - **snapshot**: a forecast or latest reading as fetched at one moment, kept beside observations.
 */

/**
 * Every dataset envdata ingests, in the order the CLI, plans and status list them: what
 * `--dataset` is checked against before anything else loads (`envdata.dataset` in Postgres).
 * Each has one definition in `src/datasets/`; the registry there (`registry.ts`) is checked
 * against this list when it compiles, so a dataset named in one place and not the other fails
 * `tsc` (docs/architecture.md, "Adding a dataset").
 */
export const DATASETS = Object.freeze(['pollen', 'weather'] as const);

/** A dataset's name: `pollen` or `weather`. */
export type Dataset = (typeof DATASETS)[number];

/**
 * What happens to the answers of a shape the service never sent before until a person accepts
 * it (`envdata upstream accept`), per dataset (docs/drift.md, "Choosing a policy"):
 * `evolve` lands their known fields and notifies; `quarantine` holds their hours back (no fact
 * row, a quarantine entry per hour) and lands them from the archive on accept; `freeze` holds
 * the answer that showed it as well and makes the dataset's calls wait until accept.
 */
export const DRIFT_POLICIES = Object.freeze(['evolve', 'quarantine', 'freeze'] as const);
export type DriftPolicy = (typeof DRIFT_POLICIES)[number];
/** A drift policy for every dataset. */
export type DriftPolicies = Readonly<Record<Dataset, DriftPolicy>>;

/** What a snapshot is of: the latest readings or a forecast (`envdata.snapshot_product`). */
export const SNAPSHOT_PRODUCT_NAMES = [
  'latest',
  'forecast_48h',
  'forecast_120h',
  'forecast_72h',
] as const;
export type SnapshotProduct = (typeof SNAPSHOT_PRODUCT_NAMES)[number];

export const RISK_LEVELS = ['Low', 'Moderate', 'High', 'Very High'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const POLLEN_TYPES = ['tree', 'grass', 'weed'] as const;
export type PollenType = (typeof POLLEN_TYPES)[number];

/** Species categories: the three pollen types plus `other` (the bare `Others` count). */
export const SPECIES_CATEGORIES = ['tree', 'grass', 'weed', 'other'] as const;
export type SpeciesCategory = (typeof SPECIES_CATEGORIES)[number];

/** The six icon values of the interface; the service sends them with `-day`/`-night` suffixes. */
export const WEATHER_ICONS = ['cloudy', 'partly-cloudy', 'clear', 'snow', 'rain', 'fog'] as const;
export type WeatherIcon = (typeof WEATHER_ICONS)[number];

/**
 * How an answer writes one share field (weather humidity, cloud cover, precipitation
 * probability): `fraction` (0–1) or `percent` (0–100). The unit belongs to each field: one
 * answer may send humidity 81 beside cloud cover 0.83. Decided per field and per answer, from
 * every value of that field, never per value (`decideShareUnit`); the warehouse stores fractions.
 */
export const SHARE_UNITS = ['fraction', 'percent'] as const;
export type ShareUnit = (typeof SHARE_UNITS)[number];

/** The weather fields written as shares, in the service's spelling. */
export const SHARE_FIELDS = ['humidity', 'cloudCover', 'precipProbability'] as const;
export type ShareField = (typeof SHARE_FIELDS)[number];

/** A share unit per field; a field absent is one whose unit is not known. */
export type ShareUnits = Readonly<Partial<Record<ShareField, ShareUnit>>>;

/** Pollen regions of the interface's region table. */
export const POLLEN_REGIONS = [
  'europe',
  'north_america',
  'australia_qld_nt',
  'australia_nz_rest',
  'south_america_oceania',
  'rest_of_world',
] as const;
export type PollenRegion = (typeof POLLEN_REGIONS)[number];

/** A half-open UTC interval `[from, to)`. */
export interface Window {
  readonly from: Date;
  readonly to: Date;
}
