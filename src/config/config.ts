import type { DriftPolicies } from './drift-policy.js';
import type { RateLimitRule } from './rate-limit.js';
import type { Budget, Money } from './money.js';
import type { NotificationEvent } from './notification-events.js';
import type { RedisNode } from './redis-cluster-nodes.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'pretty';

/** Where BullMQ keeps the queue (ENVDATA_QUEUE_BACKEND). */
export const QUEUE_BACKENDS = ['redis', 'postgres'] as const;
export type QueueBackend = (typeof QUEUE_BACKENDS)[number];

/** How alerts are posted (ENVDATA_NOTIFY_FORMAT). */
export const NOTIFY_FORMATS = ['slack', 'json'] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

/** One URL of ENVDATA_NOTIFY_URL. */
export interface NotifyTarget {
  /** The URL itself: a secret (a Slack webhook's path is its password). Never logged. */
  readonly url: string;
  /** What the outbox keys its delivery by: the first 16 hex digits of the URL's SHA-256. */
  readonly id: string;
  /** How messages name it: `target 1 (hooks.slack.com)`, the host only. */
  readonly label: string;
}

/** The validated, frozen configuration of one envdata process. Build it with `loadConfig`. */
export interface Config {
  readonly databaseUrl: string;
  readonly databasePoolMax: number;
  /** Statements marked `prepared` run as named statements (DATABASE_PREPARED_STATEMENTS). */
  readonly databasePreparedStatements: boolean;
  /** `postgres`: the queue lives in schema `envdata_queue` of `databaseUrl`; Redis is not used. */
  readonly queueBackend: QueueBackend;
  /**
   * The Redis of the `redis` backend. With `redisClusterNodes`, only its credentials and TLS
   * (`rediss://`) are used, for every node of the cluster.
   */
  readonly redisUrl: string;
  /**
   * REDIS_CLUSTER_NODES: the nodes of a Redis Cluster that every Redis connection of envdata
   * goes to instead of `redisUrl` (the BullMQ prefix is then the hash tag `{queuePrefix}`).
   * Empty: one Redis at `redisUrl`.
   */
  readonly redisClusterNodes: readonly RedisNode[];
  readonly queuePrefix: string;
  readonly service: {
    readonly baseUrl: string;
    /** `undefined` until set; commands that call the service refuse to start without it. */
    readonly apiKey: string | undefined;
    readonly language: string | undefined;
    readonly connections: number;
    readonly connectTimeoutMs: number;
    readonly requestTimeoutMs: number;
    /** Largest answer body read (ENVDATA_HTTP_MAX_BODY_BYTES). */
    readonly maxBodyBytes: number;
  };
  /** The short rules of ENVDATA_RATE_LIMIT, paced; a `N/day` rule is `quota.perDay` instead. */
  readonly rateLimits: readonly RateLimitRule[];
  /** The plan's calendar quotas (ENVDATA_QUOTA) and the sync's share of each day. */
  readonly quota: {
    /** Calls per calendar day: ENVDATA_QUOTA's `/day`, or ENVDATA_RATE_LIMIT's `N/day`. */
    readonly perDay: number | undefined;
    readonly perMonth: number | undefined;
    /** Whose midnight resets the quota (ENVDATA_QUOTA_TIMEZONE). */
    readonly timeZone: string;
    /** Real seconds per quota day: 86400 but in tests (ENVDATA_QUOTA_DAY_SECONDS). */
    readonly daySeconds: number;
    /** Calls of each day only sync history and snapshots may take (ENVDATA_SYNC_RESERVE), below `perDay`. */
    readonly syncReserve: number;
    /**
     * Calls ENVDATA_BUDGET pays for each calendar month at ENVDATA_PRICE_PER_CALL
     * (floor(budget / price)): a monthly cap beside `perMonth`, the tighter binding.
     */
    readonly budgetPerMonth?: number | undefined;
  };
  /** What calls cost (ENVDATA_PRICE_PER_CALL) and the most to spend (ENVDATA_BUDGET). */
  readonly money: {
    readonly price: Money | undefined;
    /** In the price's currency; only with a price above 0. */
    readonly budget: Budget | undefined;
  };
  readonly console: {
    /**
     * ENVDATA_CONSOLE_TOKEN: `envdata serve` needs it to bind beyond loopback, and its actions
     * need it always. `undefined` until set. Never logged.
     */
    readonly token: string | undefined;
    /**
     * ENVDATA_CONSOLE_HOSTS: names (lower case, as a browser sends them in `Host`) the console
     * answers to besides loopback ones; set, they also limit a console bound beyond loopback.
     */
    readonly hosts: readonly string[];
    /**
     * ENVDATA_TRACE_URL: a trace's address in the trace viewer, `{traceId}` where its id goes;
     * the console links failed chunks to their traces with it. `undefined`: no link.
     */
    readonly traceUrl: string | undefined;
  };
  readonly worker: {
    readonly concurrency: number;
    readonly maxAttempts: number;
    readonly retryBaseMs: number;
    readonly shutdownTimeoutMs: number;
    /**
     * Longest pause of every worker, whatever asked for it: Retry-After, the throttle's backoff,
     * the call budget (ENVDATA_MAX_PAUSE).
     */
    readonly maxPauseMs: number;
    /** Most jobs waiting in Redis at once (ENVDATA_MAX_QUEUED_JOBS). */
    readonly maxQueuedJobs: number;
    /** Job lock; a worker silent for this long is presumed dead (ENVDATA_JOB_LOCK_MS). */
    readonly jobLockMs: number;
    /**
     * How often each worker reports itself alive; silent for three of these, it is presumed
     * gone (ENVDATA_WORKER_HEARTBEAT).
     */
    readonly heartbeatMs: number;
    /** Done chunks are folded into their run's totals this long after (ENVDATA_CHUNK_RETENTION). */
    readonly chunkRetentionMs: number;
  };
  readonly ingest: {
    /** Hours per history request; with `historyWindowAuto`, the first window (48). */
    readonly historyWindowHours: number;
    /**
     * ENVDATA_HISTORY_WINDOW=auto: chunks are sized by the window learned for the key and
     * dataset (`src/windows/learned-window.ts`), starting at `historyWindowHours`.
     */
    readonly historyWindowAuto: boolean;
    /** Keep raw payloads (gzip) for `envdata rebuild`. */
    readonly archiveRaw: boolean;
    /**
     * Answer bodies are deleted once every answer that brought them was fetched longer ago than
     * this many days; `undefined` keeps them all (ENVDATA_ARCHIVE_RETENTION_DAYS).
     */
    readonly archiveRetentionDays?: number | undefined;
    /** Ask pollen endpoints for per-species risk (ENVDATA_SPECIES_RISK). */
    readonly speciesRisk: boolean;
    /**
     * What the answers of a shape not accepted do, per dataset (ENVDATA_DRIFT_POLICY); a
     * `drift` of envdata.yaml stored by `envdata apply` wins (`envdata.drift_policy`).
     */
    readonly driftPolicy: DriftPolicies;
    /** Re-fetches of a chunk whose answer lacked hours (ENVDATA_REFETCH_ATTEMPTS). */
    readonly refetchAttempts: number;
    /** First delay before such a re-fetch; doubles each time (ENVDATA_REFETCH_DELAY_MS). */
    readonly refetchDelayMs: number;
    /** Holes are asked for again after this long (ENVDATA_MISSING_RECHECK). */
    readonly recheckMs: number;
    /** "No data" hours are asked for again after this long; 0 never (ENVDATA_NO_DATA_RECHECK). */
    readonly noDataRecheckMs: number;
  };
  readonly sync: {
    /** Cron pattern of the nightly sync, UTC (ENVDATA_SYNC_CRON). */
    readonly cron: string;
    /** Directory of the Parquet export (ENVDATA_EXPORT_DIR). */
    readonly exportDir?: string | undefined;
    /** When the scheduler exports to `exportDir`, cron, UTC; unset never (ENVDATA_EXPORT_CRON). */
    readonly exportCron?: string | undefined;
    /** Hours before the last complete hour a sync re-reads (ENVDATA_SYNC_LOOKBACK). */
    readonly lookbackHours: number;
    /** Lag beyond which `status --check` fails (ENVDATA_FRESHNESS_MAX_LAG). */
    readonly maxLagHours: number;
    /** Most a sync catches up per location and dataset; older is left to backfill (ENVDATA_SYNC_HORIZON). */
    readonly horizonHours: number;
    /**
     * Snapshots fetched longer ago than this are dropped by whole months; `undefined` keeps
     * them all (ENVDATA_SNAPSHOT_RETENTION).
     */
    readonly snapshotRetentionMs?: number | undefined;
  };
  readonly notify: {
    /** ENVDATA_NOTIFY_URL, in order; empty: events stay in the outbox. */
    readonly targets: readonly NotifyTarget[];
    readonly format: NotifyFormat;
    /** The events posted to the targets (ENVDATA_NOTIFY_EVENTS); the outbox keeps them all. */
    readonly events: readonly NotificationEvent[];
    /** Events older than this are dropped undelivered (ENVDATA_NOTIFY_MAX_AGE). */
    readonly maxAgeMs: number;
    /** Runs waiting with no worker connected this long raise `no-worker` (ENVDATA_NO_WORKER_ALERT). */
    readonly noWorkerAlertMs: number;
    /**
     * An ended run that revised more than this share of the hours it re-read raises
     * `run-revised`; `undefined`: never (ENVDATA_ALERT_REVISED_SHARE=off).
     */
    readonly revisedShare?: number | undefined;
  };
  /** OpenLineage RunEvents (docs/observability.md); `undefined`: none recorded. */
  readonly lineage?:
    | {
        /** Where events are POSTed (ENVDATA_OPENLINEAGE_URL, with `/api/v1/lineage` unless given). */
        readonly endpoint: string;
        /** ENVDATA_OPENLINEAGE_API_KEY: a secret, sent as a bearer token only. */
        readonly apiKey?: string | undefined;
        /** The jobs' namespace (ENVDATA_OPENLINEAGE_NAMESPACE). */
        readonly namespace: string;
      }
    | undefined;
  readonly locations: {
    /** Most rows read from one file by `envdata locations import` (ENVDATA_IMPORT_MAX_ROWS). */
    readonly importMaxRows: number;
  };
  readonly log: {
    readonly level: LogLevel;
    readonly format: LogFormat;
    /**
     * Whether output may be coloured (`NO_COLOR` unset or empty). Each output still colours
     * only on a terminal: pretty logs, the `status` table.
     */
    readonly color: boolean;
  };
}
