/**
 * The environment variables envdata reads, with defaults and descriptions. This table is the
 * single source for validation (`load-config.ts`), `envdata --help` and `.env.example`.
 */
export interface EnvironmentVariable {
  readonly name: string;
  /** `undefined`: no default; the variable is optional unless `required`. */
  readonly default: string | undefined;
  readonly description: string;
  readonly secret?: boolean;
  /**
   * The values a number or duration may take, inclusive, in `unit`: enforced by `loadConfig`
   * and shown in its errors, `--help` and `.env.example` (`formatRange`).
   */
  readonly range?: ValueRange;
}

/** Inclusive bounds of a numeric setting; `ms` and `h` are durations (`h` also takes `Nd`). */
export interface ValueRange {
  readonly min: number;
  readonly max: number;
  readonly unit: 'count' | 'ms' | 'h';
}

export const ENVIRONMENT_VARIABLES = [
  {
    name: 'DATABASE_URL',
    default: 'postgres://postgres@127.0.0.1:5432/envdata',
    description: 'Postgres of the warehouse; `envdata migrate` creates the database if missing.',
  },
  {
    name: 'DATABASE_POOL_MAX',
    default: '10',
    description: 'Connections per process in the Postgres pool.',
    range: { min: 1, max: 1000, unit: 'count' },
  },
  {
    name: 'DATABASE_PREPARED_STATEMENTS',
    default: 'true',
    description:
      "Prepare the landing's statements once per connection (named statements). Set false behind a pooler in transaction mode that cannot keep them (PgBouncer before 1.21, or without max_prepared_statements).",
  },
  {
    name: 'ENVDATA_QUEUE_BACKEND',
    default: 'redis',
    description:
      'Where BullMQ keeps the queue: redis (REDIS_URL; the largest deployments) or postgres (schema envdata_queue of DATABASE_URL; no Redis needed).',
  },
  {
    name: 'REDIS_URL',
    default: 'redis://127.0.0.1:6379',
    description:
      'Redis that dispatches jobs (BullMQ) when ENVDATA_QUEUE_BACKEND=redis. Use maxmemory-policy noeviction.',
  },
  {
    name: 'REDIS_CLUSTER_NODES',
    default: undefined,
    description:
      'host:port,host:port,… of a Redis Cluster: every Redis connection goes to the cluster instead of REDIS_URL (whose user, password and rediss:// TLS still apply), and the BullMQ prefix becomes {ENVDATA_QUEUE_PREFIX}. Not with ENVDATA_QUEUE_BACKEND=postgres.',
  },
  {
    name: 'ENVDATA_QUEUE_PREFIX',
    default: 'envdata',
    description:
      'BullMQ key prefix (redis backend); separate installations sharing one Redis need different ones.',
  },
  {
    name: 'ENVDATA_BASE_URL',
    default: 'http://127.0.0.1:8787',
    description: 'Base address of the Environmental Data Service (default: the local simulator).',
  },
  {
    name: 'ENVDATA_API_KEY',
    default: undefined,
    description:
      'API key sent as x-api-key. Required by commands that call the service. Never logged.',
    secret: true,
  },
  {
    name: 'ENVDATA_CONSOLE_TOKEN',
    default: undefined,
    description:
      'Token of the operations console (`envdata serve`), 16+ characters: required to bind it beyond loopback, and for its actions (retry, resume) everywhere. Never logged.',
    secret: true,
  },
  {
    name: 'ENVDATA_CONSOLE_HOSTS',
    default: undefined,
    description:
      'Names (comma-separated, no port) the console also answers to besides localhost, 127.0.0.0/8 and [::1], e.g. the name of a reverse proxy in front of it; a request naming another Host is refused 421 (DNS rebinding). Set, it also limits a console bound beyond loopback.',
  },
  {
    name: 'ENVDATA_TRACE_URL',
    default: undefined,
    description:
      'Address of a trace in your trace viewer, with {traceId} where its id goes (Jaeger: http://localhost:16686/trace/{traceId}): the console links each failed chunk to its trace. Traces themselves are turned on by the standard OTEL_EXPORTER_OTLP_ENDPOINT.',
  },
  {
    name: 'ENVDATA_LANGUAGE',
    default: undefined,
    description: 'Accept-Language sent to the service (default: the service default, English).',
  },
  {
    name: 'ENVDATA_RATE_LIMIT',
    default: '10/s',
    description:
      'Calls allowed by your API plan, shared by all workers on all hosts: 20/s, 1200/min, 20/s,50000/day, or off. A N/day rule is the daily quota of ENVDATA_QUOTA (calendar days).',
  },
  {
    name: 'ENVDATA_QUOTA',
    default: 'off',
    description:
      "Your plan's quota per calendar day and/or month, shared by all workers on all hosts: 50000/day, 1000000/month, 50000/day,1000000/month, or off. Counted in the provider's calendar (ENVDATA_QUOTA_TIMEZONE).",
  },
  {
    name: 'ENVDATA_QUOTA_TIMEZONE',
    default: 'UTC',
    description:
      'Time zone whose midnight resets the quota (an IANA name such as UTC or America/New_York).',
  },
  {
    name: 'ENVDATA_SYNC_RESERVE',
    default: '10%',
    description:
      "Calls of each day's quota only the sync may use (history and snapshots); backfill, retry and rebuild wait for the next day instead: a number of calls such as 2000, or a share of the daily quota such as 10%.",
  },
  {
    name: 'ENVDATA_PRICE_PER_CALL',
    default: 'off',
    description:
      'What one call costs on your plan, with its ISO 4217 currency: 0.0004 EUR (at most 9 decimal places, 0 or more), or off. Dry runs and `status` then show costs.',
  },
  {
    name: 'ENVDATA_BUDGET',
    default: 'off',
    description:
      "Most to spend per calendar month of the quota's calendar, in the price's currency: 300 EUR/month, or off. Needs ENVDATA_PRICE_PER_CALL above 0; acts as a monthly quota of budget ÷ price calls, and a backfill, sync --now, apply or retry planned beyond it is refused (exit 2) unless --allow-over-budget.",
  },
  {
    name: 'ENVDATA_QUOTA_DAY_SECONDS',
    default: '86400',
    description:
      'Length of a quota day in real seconds, for tests only: as ENVDATA_SIM_DAY_SECONDS (a month lasts its calendar days of these).',
    range: { min: 1, max: 86_400, unit: 'count' },
  },
  {
    name: 'ENVDATA_WORKER_CONCURRENCY',
    default: '8',
    description: 'Chunks one worker process works on at once.',
    range: { min: 1, max: 1000, unit: 'count' },
  },
  {
    name: 'ENVDATA_MAX_ATTEMPTS',
    default: '8',
    description:
      'Attempts per chunk for transient errors (5xx, timeouts); 429 pauses do not count.',
    range: { min: 1, max: 25, unit: 'count' },
  },
  {
    name: 'ENVDATA_RETRY_BASE_MS',
    default: '2000',
    description: 'First retry delay; doubles each attempt, with jitter.',
    range: { min: 10, max: 600_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_MAX_PAUSE',
    default: '15m',
    description:
      'Longest pause of every worker after a 429 or 422 (from Retry-After or the backoff) or a spent call budget, as 30s, 15m or 2h: the workers then ask again. A Retry-After of more than a day is not believed at all.',
    range: { min: 1_000, max: 86_400_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_MAX_QUEUED_JOBS',
    default: '1000',
    description:
      'Most jobs waiting in Redis at once; the plan stays in Postgres and is fed in batches.',
    range: { min: 1, max: 1_000_000, unit: 'count' },
  },
  {
    name: 'ENVDATA_JOB_LOCK_MS',
    default: '30000',
    description:
      'How long a worker holds a job before it is considered stalled (crashed) and run elsewhere.',
    range: { min: 2_000, max: 600_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_WORKER_HEARTBEAT',
    default: '5s',
    description:
      'How often each worker reports itself alive (with the jobs in hand), busy or idle, as 500ms, 5s or 1m; a worker silent for three of these is presumed gone (`envdata status`, envdata_workers_alive).',
    range: { min: 100, max: 60_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_HISTORY_WINDOW',
    default: '48h',
    description:
      'Length of one history request (chunk), in whole hours: 48h, 24h, 7d; or auto: start at 48h and learn the longest range the service accepts for this key and dataset (kept in the ledger).',
    range: { min: 1, max: 24 * 366, unit: 'h' },
  },
  {
    name: 'ENVDATA_REFETCH_ATTEMPTS',
    default: '2',
    description:
      'Re-fetches of a chunk whose successful answer lacked hours (or had them quarantined) before those hours are recorded as missing upstream; 0 records them at once.',
    range: { min: 0, max: 20, unit: 'count' },
  },
  {
    name: 'ENVDATA_REFETCH_DELAY_MS',
    default: '2000',
    description: 'Delay before the first such re-fetch; doubles each time, with jitter.',
    range: { min: 10, max: 600_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_MISSING_RECHECK',
    default: '24h',
    description:
      'Hours missing upstream, quarantined or not covered are asked for again by a later backfill or sync at most this often.',
    range: { min: 0, max: 24 * 366, unit: 'h' },
  },
  {
    name: 'ENVDATA_NO_DATA_RECHECK',
    default: '30d',
    description:
      'Hours the service answered "Data not available!" are asked for again by a later backfill (or a sync over them) at most this often; 0 never asks them again (`backfill --recheck-no-data` still does).',
    range: { min: 0, max: 24 * 3660, unit: 'h' },
  },
  {
    name: 'ENVDATA_CHUNK_RETENTION',
    default: '1h',
    description:
      "How long finished chunks stay in the ledger before they are folded into their run's totals (0h: at once); failed chunks stay.",
    range: { min: 0, max: 24 * 366, unit: 'h' },
  },
  {
    name: 'ENVDATA_ARCHIVE_RAW',
    default: 'true',
    description:
      'Keep the body of every answer that landed anything, compressed and once per SHA-256, so values stay traceable to it and `envdata rebuild` can redo facts without calls.',
  },
  {
    name: 'ENVDATA_ARCHIVE_RETENTION_DAYS',
    default: undefined,
    description:
      "Days the raw archive keeps an answer body: housekeeping deletes a body once every answer that brought it was fetched longer ago than this (a few hundred at a time). The answers stay recorded with their SHA-256 (analytics.answers, body_archived false): every value stays traceable, `envdata rebuild` can no longer redo them without calls. Unset: every body is kept. `envdata status` shows the archive's size.",
    range: { min: 1, max: 36_600, unit: 'count' },
  },
  {
    name: 'ENVDATA_SYNC_CRON',
    default: '0 2 * * *',
    description:
      "When the scheduler runs the nightly sync (cron, UTC; checked with BullMQ's parser; at most hourly).",
  },
  {
    name: 'ENVDATA_EXPORT_DIR',
    default: undefined,
    description:
      'Directory of the Parquet export (docs/export.md): the default `--to` of `envdata export`, and where ENVDATA_EXPORT_CRON writes.',
  },
  {
    name: 'ENVDATA_EXPORT_CRON',
    default: undefined,
    description:
      'When the scheduler runs `envdata export parquet` to ENVDATA_EXPORT_DIR (cron, UTC), e.g. `0 5 * * *` after the nightly sync has landed; unset: never.',
  },
  {
    name: 'ENVDATA_SYNC_LOOKBACK',
    default: '48h',
    description: 'How far before the last complete hour a sync re-reads, for late corrections.',
    range: { min: 1, max: 24 * 31, unit: 'h' },
  },
  {
    name: 'ENVDATA_SYNC_HORIZON',
    default: '30d',
    description:
      'Most a sync catches up per location and dataset; anything older is left to `envdata backfill`.',
    range: { min: 1, max: 24 * 366, unit: 'h' },
  },
  {
    name: 'ENVDATA_SNAPSHOT_RETENTION',
    default: undefined,
    description:
      'Latest readings and forecasts fetched longer ago than this (e.g. 400d) are dropped, a whole month of fetches at a time once all of it is this old, after the forecast-accuracy rollup has summed them (analytics.forecast_accuracy_daily keeps them). At least 31d: the days a dropped month forecast are settled, and their observations must have landed by then. Unset: every snapshot is kept.',
    range: { min: 24 * 31, max: 24 * 36_600, unit: 'h' },
  },
  {
    name: 'ENVDATA_SPECIES_RISK',
    default: 'false',
    description: 'Ask pollen endpoints for the per-species risk evaluation (speciesRisk=true).',
  },
  {
    name: 'ENVDATA_DRIFT_POLICY',
    default: 'evolve',
    description:
      "What the answers of a new, not yet accepted shape do (docs/drift.md): evolve (land the known fields, notify), quarantine (hold their hours until `envdata upstream accept`) or freeze (hold them and make the dataset's calls wait); one for every dataset, or per dataset: weather=quarantine,pollen=evolve. A `drift` in envdata.yaml, stored by `envdata apply`, wins.",
  },
  {
    name: 'ENVDATA_FRESHNESS_MAX_LAG',
    default: '36h',
    description: '`envdata status --check` fails when a location lags more than this behind now.',
    range: { min: 1, max: 24 * 366, unit: 'h' },
  },
  {
    name: 'ENVDATA_NOTIFY_URL',
    default: undefined,
    description:
      'Where envdata posts its alerts (a run failed, the key was refused, data went stale, …): one or more http(s) URLs, comma or space separated, each once, such as a Slack incoming webhook. Unset: events wait in the outbox (`envdata status`). A secret: never logged, shown as its host only.',
    secret: true,
  },
  {
    name: 'ENVDATA_NOTIFY_FORMAT',
    default: 'slack',
    description:
      'slack (`{"text": …}`, which Slack, Mattermost, Rocket.Chat and Teams webhooks take) or json (a typed document: docs/json-schemas/notification.schema.json).',
  },
  {
    name: 'ENVDATA_NOTIFY_EVENTS',
    default: 'all',
    description:
      'The events posted to ENVDATA_NOTIFY_URL: all, or a comma-separated list of event names (run-ended, key-refused, freshness-breached, …; an unknown name is refused with the list). The outbox and `envdata status` keep every event.',
  },
  {
    name: 'ENVDATA_NOTIFY_MAX_AGE',
    default: '24h',
    description:
      'An alert not delivered within this long is dropped (a log line and envdata_notifications_total{outcome="dropped"}), as 30m, 24h or 7d.',
    range: { min: 60_000, max: 30 * 86_400_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_OPENLINEAGE_URL',
    default: undefined,
    description:
      "Where envdata sends an OpenLineage RunEvent for every run (START, then COMPLETE, FAIL or ABORT): the receiver's base URL (Marquez: http://localhost:5000), events POSTed to <url>/api/v1/lineage; a URL whose path ends in /lineage is taken as the endpoint itself. Unset: no lineage events are recorded (docs/observability.md).",
  },
  {
    name: 'ENVDATA_OPENLINEAGE_API_KEY',
    default: undefined,
    description:
      'Sent to ENVDATA_OPENLINEAGE_URL as `Authorization: Bearer <key>` when set. A secret: never logged, stored or put in an event.',
    secret: true,
  },
  {
    name: 'ENVDATA_OPENLINEAGE_NAMESPACE',
    default: 'envdata',
    description:
      "The OpenLineage job namespace of envdata's jobs (envdata.backfill, envdata.sync, envdata.rebuild).",
  },
  {
    name: 'ENVDATA_NO_WORKER_ALERT',
    default: '10m',
    description:
      'Alert when runs have work queued and no worker has been connected for this long, as 5m or 1h.',
    range: { min: 10_000, max: 7 * 86_400_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_ALERT_REVISED_SHARE',
    default: '0.05',
    description:
      'An ended run that revised more than this share of the hours it re-read (values changed since an earlier answer, the old ones kept in analytics.*_revisions) raises `run-revised`, once: 0.05, 5% or off.',
  },
  {
    name: 'ENVDATA_HTTP_CONNECTIONS',
    default: '16',
    description: 'Keep-alive connections to the service per process.',
    range: { min: 1, max: 1024, unit: 'count' },
  },
  {
    name: 'ENVDATA_HTTP_CONNECT_TIMEOUT_MS',
    default: '10000',
    description: 'Connect timeout for calls to the service.',
    range: { min: 100, max: 120_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_HTTP_TIMEOUT_MS',
    default: '30000',
    description: 'Response timeout (headers and body) for calls to the service.',
    range: { min: 500, max: 600_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_HTTP_MAX_BODY_BYTES',
    default: '1048576',
    description:
      'Largest answer read from the service, in bytes (1 MiB: ~29x a 48 h history body); a larger one is refused as it arrives and its chunk split into shorter windows.',
    range: { min: 1, max: 1_073_741_824, unit: 'count' },
  },
  {
    name: 'ENVDATA_SHUTDOWN_TIMEOUT_MS',
    default: '30000',
    description: 'On SIGTERM/SIGINT, how long in-flight chunks may take before the process exits.',
    range: { min: 1_000, max: 600_000, unit: 'ms' },
  },
  {
    name: 'ENVDATA_IMPORT_MAX_ROWS',
    default: '100000',
    description:
      'Most rows `envdata locations import` reads from one file, and most locations a declared file (envdata.yaml) holds, its `file:` entries included; a longer file is refused, nothing written.',
    range: { min: 1, max: 10_000_000, unit: 'count' },
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    description: 'fatal, error, warn, info, debug or trace.',
  },
  {
    name: 'LOG_FORMAT',
    default: 'auto',
    description: 'json, pretty, or auto (pretty on a terminal, JSON otherwise).',
  },
  {
    name: 'NO_COLOR',
    default: undefined,
    description:
      'Any non-empty value turns colours off (no-color.org): pretty logs and `envdata status` on a terminal.',
  },
] as const satisfies readonly EnvironmentVariable[];

export type EnvironmentVariableName = (typeof ENVIRONMENT_VARIABLES)[number]['name'];
