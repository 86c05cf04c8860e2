import type { ColumnType, Generated } from 'kysely';
import type {
  Dataset,
  DriftPolicy,
  PollenRegion,
  PollenType,
  RiskLevel,
  ShareField,
  ShareUnit,
  SnapshotProduct,
  SpeciesCategory,
  WeatherIcon,
} from '../types.js';

/**
 * Table types of the warehouse, as Kysely sees them (search_path `envdata, public`).
 * Migrations (`migrations/`) are the truth; these types follow them. snake_case stays here
 * and in SQL.
 */

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export type ChunkStatus = 'pending' | 'queued' | 'running' | 'done' | 'failed' | 'split';
export type ChunkOutcome = 'rows' | 'no_data' | 'not_covered';
/** A chunk's recorded outcome: its answer's, or `settled` (done at claim time without a call). */
export type ChunkRecordedOutcome = ChunkOutcome | 'settled';
export type RunKind = 'backfill' | 'sync' | 'rebuild';
export type RunStatus =
  'planning' | 'running' | 'paused' | 'done' | 'failed' | 'stopped' | 'cancelled';
/** What a snapshot is of (the vocabulary's, src/types.ts). */
export type { SnapshotProduct };
export type RegisteredBy = 'coordinates' | 'place' | 'import';

export interface LocationTable {
  location_id: Generated<number>;
  name: string;
  /** `locationNameKey(name)`: unique across names and aliases (`location_alias.alias_key`). */
  name_key: string;
  lat: number;
  lng: number;
  country_code: string | null;
  timezone: string;
  pollen_region: PollenRegion;
  place: string | null;
  registered_by: RegisteredBy;
  created_at: ColumnType<Date, never, never>;
  /** Set by `envdata locations remove` (without `--purge`): facts stay, planning skips it. */
  retired_at: Timestamp | null;
  /** Prefer the pollen by-place endpoints with `place` (only with a place). */
  ingest_by_place: ColumnType<boolean, boolean | undefined, boolean>;
  /** The group envdata.yaml last applied gives it (`group: alps`; migration 0049). */
  declared_group: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Other texts a location answers to: the place text it was registered by. */
export interface LocationAliasTable {
  /** `locationNameKey(alias)`: unique across aliases and names (`location.name_key`). */
  alias_key: string;
  location_id: number;
  /** As given, NFC. */
  alias: string;
}

export interface PollenSpeciesTable {
  species_id: Generated<number>;
  category: SpeciesCategory;
  name: string;
}

export interface PollenHourlyTable {
  location_id: number;
  observed_at: Timestamp;
  pollen_type: PollenType;
  count: number | null;
  risk_level: RiskLevel | null;
}

export interface PollenSpeciesHourlyTable {
  location_id: number;
  observed_at: Timestamp;
  species_id: number;
  count: number;
  risk_level: RiskLevel | null;
}

export interface WeatherColumns {
  temperature_c: number | null;
  apparent_temperature_c: number | null;
  dew_point_c: number | null;
  humidity_fraction: number | null;
  pressure_hpa: number | null;
  wind_speed_ms: number | null;
  wind_gust_ms: number | null;
  wind_bearing_deg: number | null;
  cloud_cover_fraction: number | null;
  visibility_km: number | null;
  uv_index: number | null;
  ozone_du: number | null;
  precip_intensity_mm_h: number | null;
  precip_probability_fraction: number | null;
  precip_type: string | null;
  summary: string | null;
  icon: WeatherIcon | null;
  icon_raw: string | null;
}

export interface WeatherHourlyTable extends WeatherColumns {
  location_id: number;
  observed_at: Timestamp;
}

export interface PollenSnapshotTable {
  location_id: number;
  product: SnapshotProduct;
  fetched_at: Timestamp;
  valid_at: Timestamp;
  pollen_type: PollenType;
  count: number | null;
  risk_level: RiskLevel | null;
  /** True when the service sent the latest reading unstamped: `valid_at` is the fetch's hour. */
  stamped_at_fetch: Generated<boolean>;
}

export interface PollenSpeciesSnapshotTable {
  location_id: number;
  product: SnapshotProduct;
  fetched_at: Timestamp;
  valid_at: Timestamp;
  species_id: number;
  count: number;
  risk_level: RiskLevel | null;
  /** True when the service sent the latest reading unstamped: `valid_at` is the fetch's hour. */
  stamped_at_fetch: Generated<boolean>;
}

export interface WeatherSnapshotTable extends WeatherColumns {
  location_id: number;
  product: SnapshotProduct;
  fetched_at: Timestamp;
  valid_at: Timestamp;
  /** True when the service sent the latest reading unstamped: `valid_at` is the fetch's hour. */
  stamped_at_fetch: Generated<boolean>;
}

/** Per location, dataset and product, the newest snapshot stored (migration 0040). */
export interface CurrentFetchTable {
  location_id: number;
  dataset: Dataset;
  product: SnapshotProduct;
  fetched_at: Timestamp;
}

export interface RunTable {
  run_id: Generated<number>;
  kind: RunKind;
  status: ColumnType<RunStatus, RunStatus | undefined, RunStatus>;
  request: ColumnType<unknown, string | undefined, string>;
  created_at: ColumnType<Date, never, never>;
  finished_at: Timestamp | null;
  error_code: string | null;
  error_message: string | null;
  blocked_datasets: ColumnType<string[], string[] | undefined, string[]>;
  priority: ColumnType<number, number | undefined, number>;
  /** Totals of the run's done chunks that were folded into the run and deleted. */
  folded_chunks: ColumnType<number, number | undefined, number>;
  folded_rows: ColumnType<string, number | undefined, number>;
  folded_calls: ColumnType<string, number | undefined, number>;
  folded_records_quarantined: ColumnType<string, number | undefined, number>;
  folded_missing_hours: ColumnType<string, number | undefined, number>;
  folded_quarantined_hours: ColumnType<string, number | undefined, number>;
  folded_not_covered_hours: ColumnType<string, number | undefined, number>;
  folded_no_data_hours: ColumnType<string, number | undefined, number>;
  /** Of `folded_chunks`, those that landed with hours missing upstream (`missing_hours > 0`). */
  folded_missing_chunks: ColumnType<number, number | undefined, number>;
  /** W3C traceparent of the span that planned it (OpenTelemetry); null when tracing was off. */
  traceparent: ColumnType<string | null, string | null | undefined, string | null>;
  /** Re-read hours of its folded chunks by dataset (`chunk.reread_hours`): `{"weather": 48}`. */
  folded_reread_hours: ColumnType<Partial<Record<Dataset, number>>, string | undefined, string>;
  /** Chunks are sized by the learned history window (`history_window`), not `window_hours`. */
  window_auto: ColumnType<boolean, boolean | undefined, boolean>;
  /** Why the run does not move though it has work (`quota (day)`), until `waiting_until`. */
  waiting_reason: ColumnType<string | null, string | null | undefined, string | null>;
  waiting_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface RunGapTable {
  run_gap_id: Generated<number>;
  run_id: number;
  dataset: Dataset;
  location_id: number;
  gap_from: Timestamp;
  gap_to: Timestamp;
  next_from: Timestamp;
  window_hours: number;
  refetch: ColumnType<boolean, boolean | undefined, boolean>;
  /** Chunks planned longer than the window known to be accepted, for this gap. */
  window_probes: ColumnType<number, number | undefined, number>;
}

/**
 * The history window learned per dataset, key fingerprint (never the key) and service address
 * (`ENVDATA_HISTORY_WINDOW=auto`).
 */
export interface HistoryWindowTable {
  dataset: Dataset;
  key_fingerprint: string;
  base_url: string;
  accepted_hours: number | null;
  refused_hours: number | null;
  probe_chunk_id: number | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** Where an answer came from: a history call, or a snapshot product's call. */
export type AnswerSource = 'history' | SnapshotProduct;

/** The share unit each source of a dataset last answered in (`src/ledger/share-unit.ts`). */
export interface ShareUnitTable {
  dataset: Dataset;
  source: AnswerSource;
  field: ShareField;
  unit: ShareUnit;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A repair the code makes after a migration (`envdata migrate`), deleted once made. */
export interface PendingRepairTable {
  repair: string;
  reason: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
}

export interface ChunkTable {
  chunk_id: Generated<number>;
  run_id: number | null;
  dataset: Dataset;
  location_id: number;
  window_from: Timestamp;
  window_to: Timestamp;
  status: ColumnType<ChunkStatus, ChunkStatus | undefined, ChunkStatus>;
  outcome: ChunkRecordedOutcome | null;
  attempts: ColumnType<number, number | undefined, number>;
  calls: ColumnType<number, number | undefined, number>;
  rows_landed: ColumnType<number, number | undefined, number>;
  rows_quarantined: ColumnType<number, number | undefined, number>;
  /** Re-fetches made because hours were missing from a successful answer. */
  refetches: ColumnType<number, number | undefined, number>;
  /** Hours of the window by cause, as recorded by the chunk's final landing. */
  missing_hours: ColumnType<number, number | undefined, number>;
  quarantined_hours: ColumnType<number, number | undefined, number>;
  not_covered_hours: ColumnType<number, number | undefined, number>;
  no_data_hours: ColumnType<number, number | undefined, number>;
  /** Hours its landings brought that had landed before (coverage): what its run re-read. */
  reread_hours: ColumnType<number, number | undefined, number>;
  error_code: string | null;
  error_message: string | null;
  parent_chunk_id: number | null;
  created_at: ColumnType<Date, never, never>;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  /** Trace id of its last attempt (OpenTelemetry, 32 hex digits); null when tracing was off. */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface QuarantineTable {
  quarantine_id: Generated<number>;
  chunk_id: number | null;
  source: string;
  location_id: number | null;
  record_index: number;
  raw: ColumnType<unknown, string | null, string | null>;
  reason: string;
  created_at: ColumnType<Date, never, never>;
  run_id: number | null;
  /** The hour the record was for, when it had one. */
  observed_at: Timestamp | null;
}

/** A view (migration 0051): each chunk's newest answer whose body the archive keeps. */
export interface RawPayloadTable {
  chunk_id: number;
  answer_id: number;
  fetched_at: Timestamp;
  http_status: number;
  encoding: 'gzip';
  body: Buffer;
  body_bytes: number;
  /** SHA-256 of the body as received (before gzip). */
  body_sha256: Buffer;
  run_id: number | null;
  location_id: number;
  dataset: Dataset;
  window_from: Timestamp;
  window_to: Timestamp;
  endpoint: string | null;
}

/** Each body the archive keeps, once per SHA-256 (migration 0051). */
export interface AnswerBodyTable {
  body_sha256: Buffer;
  encoding: ColumnType<'gzip', 'gzip' | undefined, 'gzip'>;
  body: Buffer;
  body_bytes: number;
  stored_at: ColumnType<Date, never, never>;
}

/** Each answer that landed anything (migration 0051). */
export interface AnswerTable {
  /** From `envdata.answer_id_seq`, taken before the landing (`AnswerIds`). */
  answer_id: ColumnType<number, number, never>;
  chunk_id: number | null;
  run_id: number | null;
  location_id: number;
  dataset: Dataset;
  window_from: Timestamp;
  window_to: Timestamp;
  endpoint: string | null;
  http_status: number;
  fetched_at: Timestamp;
  /** The landing transaction's start. */
  landed_at: ColumnType<Date, never, never>;
  body_sha256: Buffer;
}

/** Per location and dataset: the hours that landed and the hours answered "no data". */
export interface CoverageTable {
  location_id: number;
  dataset: Dataset;
  /** Multirange literal, e.g. `{["2024-01-01 00:00:00+00","2024-01-03 00:00:00+00")}`. */
  landed: ColumnType<string, string | undefined, string>;
  no_data: ColumnType<string, string | undefined, string>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export type HoleCause = 'missing_upstream' | 'quarantined' | 'not_covered';

/**
 * Hours that did not land, by cause, with when the service was last asked for them. `no_data`:
 * the latest answer for those hours was "Data not available!" (migration 0024).
 */
export interface CoverageHoleTable {
  location_id: number;
  dataset: Dataset;
  hours: string;
  cause: HoleCause | 'no_data';
  run_id: number | null;
  checked_at: Timestamp;
}

export interface RollupDirtyTable {
  location_id: number;
  dataset: Dataset;
  from_at: Timestamp;
  to_at: Timestamp;
}

/** One fixed window of one rate-limit rule of the call budget (Postgres queue backend). */
export interface CallBudgetTable {
  duration_ms: number;
  window_index: number;
  used: number;
  expires_at: Timestamp;
}

/** Calls counted against a calendar quota (ENVDATA_QUOTA; Postgres queue backend). */
export interface QuotaUsageTable {
  quota_window: 'day' | 'month';
  period: string;
  used: number;
  expires_at: Timestamp;
}

/** The latest call slots of the tightest rate-limit rule (Postgres queue backend). */
export interface CallPaceTable {
  rule: string;
  /** Epoch milliseconds, oldest first; bigints come back as strings. */
  slots: ColumnType<string[], number[], number[]>;
  expires_at: Timestamp;
}

/** The service's matches for a place text, kept for `envdata plan` (migration 0038). */
export interface GeocodeAnswerTable {
  place_key: string;
  /** `GeocodeMatch[]`, best first. */
  matches: ColumnType<unknown, string, string>;
  answered_at: ColumnType<Date, Date | undefined, Date>;
}

/** One worker's last heartbeat on one queue (Postgres queue backend; migration 0032). */
export interface WorkerHeartbeatTable {
  queue: string;
  worker_id: string;
  host: string;
  pid: number;
  concurrency: number;
  /** Jobs it was working on at that beat. */
  busy: number;
  started_at: Timestamp;
  beat_at: Timestamp;
  /** Beyond this, the worker is presumed gone. */
  expires_at: Timestamp;
}

/** Calls to the service per minute and endpoint, summed over every worker (the console's chart). */
export interface ApiCallMinuteTable {
  minute: Timestamp;
  endpoint: string;
  calls: Generated<number>;
  throttled: Generated<number>;
  failed: Generated<number>;
}

export interface Database {
  location: LocationTable;
  location_alias: LocationAliasTable;
  pollen_species: PollenSpeciesTable;
  pollen_hourly: PollenHourlyTable;
  pollen_species_hourly: PollenSpeciesHourlyTable;
  weather_hourly: WeatherHourlyTable;
  pollen_snapshot: PollenSnapshotTable;
  pollen_species_snapshot: PollenSpeciesSnapshotTable;
  weather_snapshot: WeatherSnapshotTable;
  current_fetch: CurrentFetchTable;
  /** The rows of each location's current snapshot (`current_fetch`): copies of their tables'. */
  pollen_snapshot_current: PollenSnapshotTable;
  pollen_species_snapshot_current: PollenSpeciesSnapshotTable;
  weather_snapshot_current: WeatherSnapshotTable;
  run: RunTable;
  run_gap: RunGapTable;
  chunk: ChunkTable;
  quarantine: QuarantineTable;
  raw_payload: RawPayloadTable;
  answer: AnswerTable;
  answer_body: AnswerBodyTable;
  rollup_dirty: RollupDirtyTable;
  coverage: CoverageTable;
  coverage_hole: CoverageHoleTable;
  call_budget: CallBudgetTable;
  api_call_minute: ApiCallMinuteTable;
  call_pace: CallPaceTable;
  quota_usage: QuotaUsageTable;
  worker_heartbeat: WorkerHeartbeatTable;
  geocode_answer: GeocodeAnswerTable;
  history_window: HistoryWindowTable;
  share_unit: ShareUnitTable;
  pending_repair: PendingRepairTable;
  notification: NotificationTable;
  notification_delivery: NotificationDeliveryTable;
  lineage_receiver: LineageReceiverTable;
  alert_state: AlertStateTable;
  upstream_shape: UpstreamShapeTable;
  drift_policy: DriftPolicyTable;
  declared_history: DeclaredHistoryTable;
}

/** A dataset's drift policy as envdata.yaml declared it (`envdata apply`; migration 0043). */
export interface DriftPolicyTable {
  dataset: Dataset;
  policy: DriftPolicy;
  declared_at: ColumnType<Date, Date | undefined, Date>;
}

/** A dataset's `since` and its groups' as envdata.yaml last applied them (migration 0049). */
export interface DeclaredHistoryTable {
  dataset: Dataset;
  /** As written: `2016-01-01`, `-90d`. */
  since: string;
  /** Group name → its `since`, as written. */
  groups: ColumnType<Record<string, string>, string | undefined, string>;
  declared_at: ColumnType<Date, Date | undefined, Date>;
}

/** A shape the service's answers of one endpoint have had (`src/ledger/record-upstream-shape.ts`). */
export interface UpstreamShapeTable {
  digest: string;
  dataset: Dataset;
  source: AnswerSource;
  shape: ColumnType<unknown, string, string>;
  first_seen_at: ColumnType<Date, Date | undefined, Date>;
  last_seen_at: ColumnType<Date, Date | undefined, Date>;
  /** `bigint`: read as a string. */
  answers: ColumnType<string, number | undefined, number>;
  sample_chunk_id: number | null;
  sample_body: string | null;
  baseline: ColumnType<boolean, boolean | undefined, boolean>;
  accepted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Met by a dataset under `freeze`: its calls wait while the shape is not accepted. */
  froze: ColumnType<boolean, boolean | undefined, boolean>;
}

/** The outbox: one event per state transition a person should hear of (`recordNotification`). */
export interface NotificationTable {
  notification_id: ColumnType<number, never, never>;
  dedupe_key: string;
  event: string;
  details: ColumnType<Record<string, unknown>, string, string>;
  created_at: ColumnType<Date, Date | undefined, never>;
}

/** One event at one target of ENVDATA_NOTIFY_URL (by fingerprint, never the URL). */
export interface NotificationDeliveryTable {
  notification_id: number;
  target: string;
  status: ColumnType<
    'pending' | 'delivered' | 'dropped',
    'pending' | undefined,
    'delivered' | 'dropped'
  >;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  last_error: string | null;
  delivered_at: Timestamp | null;
}

/** A process with ENVDATA_OPENLINEAGE_URL set, and when it last said so (migration 0055). */
export interface LineageReceiverTable {
  receiver: string;
  seen_at: ColumnType<Date, Date | undefined, Date>;
}

/** Whether a condition checked periodically is in breach, and how often it changed. */
export interface AlertStateTable {
  alert: string;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  changes: ColumnType<number, number | undefined, number>;
  changed_at: ColumnType<Date, Date | undefined, Date>;
}
