import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../logging/create-logger.js';
import type { Dataset } from '../types.js';
import { CachedReading } from './cached-reading.js';
import type { ChunkJobOutcome, MetricsObserver, RateLimitWaitReason } from './metrics-observer.js';

/** The chunk statuses of the ledger, each reported (0 when none). */
const CHUNK_STATES = ['pending', 'queued', 'running', 'done', 'failed', 'split'] as const;

/** The BullMQ job states reported, each (0 when none). */
export const QUEUE_JOB_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'completed',
  'failed',
  'paused',
] as const;

/** The worst lag and the stale locations of one dataset (`readFreshness`, aggregated). */
export interface DatasetFreshness {
  readonly dataset: Dataset;
  /** Seconds the worst location with data lags; `null` when no location has any yet. */
  readonly worstLagSeconds: number | null;
  /** Locations lagging more than ENVDATA_FRESHNESS_MAX_LAG, or with nothing landed. */
  readonly stale: number;
}

/** Where the scrape-time gauges read; each may fail without failing the scrape. */
export interface MetricsSources {
  /** Chunks of the runs not finished, by status (`countOpenChunks`). */
  readonly chunks: () => Promise<Partial<Record<string, number>>>;
  /** Jobs of the ingest queue by state (`Queue.getJobCounts`). */
  readonly queueJobs: () => Promise<Partial<Record<string, number>>>;
  readonly freshness: () => Promise<readonly DatasetFreshness[]>;
  /** Each configured quota window's calls used and cap (`readQuotaUsage`); none: no quota gauges. */
  readonly quota?: () => Promise<readonly QuotaWindowCalls[]>;
  /** Workers of the ingest queue alive by their heartbeat (`QueueFactory.listWorkers`). */
  readonly workersAlive: () => Promise<number>;
  /**
   * Seconds since the oldest change the last Parquet export did not see (0 when none);
   * undefined when no export ever finished.
   */
  readonly exportLag?: () => Promise<number | undefined>;
}

/** One quota window's calls, as the shared counters read them. */
export interface QuotaWindowCalls {
  readonly window: 'day' | 'month';
  readonly used: number;
  readonly limit: number;
}

export interface EnvdataMetricsOptions {
  readonly logger: Logger;
  readonly sources: MetricsSources;
  /** How long a scrape-time reading is served before it is read again. Default 5 s. */
  readonly collectTtlMs?: number;
  /** Longest a scrape waits for one reading before it serves the last. Default 2 s. */
  readonly collectTimeoutMs?: number;
}

/** prom-client's default gauges that end in `_total`. */
const NOT_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Chunk jobs last from milliseconds (a landing) to minutes (a slow service, a long pause). */
const CHUNK_SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * The Prometheus metrics of one envdata process (prom-client), in a registry of its own with the
 * default process metrics, named by the metric contract (docs/operations: "Metrics"): counters
 * and a histogram the hot paths feed as a `MetricsObserver`, and gauges read at scrape time from
 * the ledger and the queue through `sources`, cached for `collectTtlMs` so a scrape every 15 s
 * costs a few queries at most, whatever the size of the ledger. No label names a location.
 */
export class EnvdataMetrics implements MetricsObserver {
  readonly registry = new Registry();
  private readonly apiCalls: Counter<'endpoint' | 'status'>;
  private readonly rowsLanded: Counter<'dataset'>;
  private readonly quarantined: Counter<'dataset'>;
  private readonly chunkSeconds: Histogram<'dataset' | 'outcome'>;
  private readonly rateLimitWaits: Counter<'reason'>;
  private readonly notifications: Counter<'event' | 'outcome'>;
  private readonly answerShapes: Counter<'dataset' | 'source' | 'shape'>;

  constructor(options: EnvdataMetricsOptions) {
    const registers = [this.registry];
    const log = options.logger.child({ component: 'metrics' });
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters break Prometheus's naming rules (`promtool check metrics`
    // refuses them); each is the sum of the by-type gauge kept beside it.
    for (const name of NOT_COUNTERS) this.registry.removeSingleMetric(name);
    this.apiCalls = new Counter({
      name: 'envdata_api_calls_total',
      help: 'Requests to the Environmental Data Service by endpoint (logical name) and HTTP status ("error": a transport failure or timeout).',
      labelNames: ['endpoint', 'status'],
      registers,
    });
    this.rowsLanded = new Counter({
      name: 'envdata_rows_landed_total',
      help: "Hourly fact rows of the dataset (all its fact tables: pollen_hourly and pollen_species_hourly, weather_hourly) that landings of the service's answers inserted or changed, counted when the landing commits; a row landed again unchanged (a re-fetch, a re-run) is not counted again.",
      labelNames: ['dataset'],
      registers,
    });
    this.quarantined = new Counter({
      name: 'envdata_records_quarantined_total',
      help: 'Records of history answers set aside in envdata.quarantine, counted when the landing commits; a record set aside again by a re-fetch of its chunk counts again (the quarantine keeps the last answer).',
      labelNames: ['dataset'],
      registers,
    });
    this.chunkSeconds = new Histogram({
      name: 'envdata_chunk_duration_seconds',
      help: 'Chunk jobs that claimed their chunk, from the claim to the outcome (landed, refetch, throttled, budget, split, retry, failed, released, stopped, blocked, error).',
      labelNames: ['dataset', 'outcome'],
      buckets: CHUNK_SECONDS_BUCKETS,
      registers,
    });
    this.rateLimitWaits = new Counter({
      name: 'envdata_rate_limit_waits_total',
      help: 'Jobs put back to wait for the rate limit: "budget" when the shared call budget was spent, "throttled" when the service answered 429 and every worker paused.',
      labelNames: ['reason'],
      registers,
    });
    this.notifications = new Counter({
      name: 'envdata_notifications_total',
      help: 'Alerts posted to ENVDATA_NOTIFY_URL by this process, per target: "delivered" (a 2xx answer), "failed" (an attempt that will be retried), "dropped" (older than ENVDATA_NOTIFY_MAX_AGE, given up).',
      labelNames: ['event', 'outcome'],
      registers,
    });

    this.answerShapes = new Counter({
      name: 'envdata_upstream_answers_total',
      help: 'Answers of the service by dataset, source (history or a snapshot product) and shape (its digest: `envdata upstream` lists them). A shape never seen before is drift; the number of shapes stays small, so the label is bounded.',
      labelNames: ['dataset', 'source', 'shape'],
      registers,
    });

    const ttlMs = options.collectTtlMs ?? 5_000;
    const timeoutMs = options.collectTimeoutMs ?? 2_000;
    const reading = <T>(name: string, read: () => Promise<T>) =>
      new CachedReading({ name, read, ttlMs, timeoutMs, logger: log });
    const chunks = reading('chunks', options.sources.chunks);
    const jobs = reading('queue jobs', options.sources.queueJobs);
    const freshness = reading('freshness', options.sources.freshness);
    const quota = reading('quota', options.sources.quota ?? (() => Promise.resolve([])));
    const workersAlive = reading('workers', options.sources.workersAlive);
    const exportLag = reading(
      'export lag',
      options.sources.exportLag ?? (() => Promise.resolve(undefined)),
    );

    new Gauge({
      name: 'envdata_chunks',
      help: 'Chunks of the runs not finished (planning, running, paused) by status, from the ledger (cached a few seconds); chunks of finished runs are not counted.',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await chunks.get();
        if (counts === undefined) return;
        for (const state of CHUNK_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
    new Gauge({
      name: 'envdata_workers_alive',
      help: 'Worker processes of the ingest queue whose heartbeat has not expired (each reports itself every ENVDATA_WORKER_HEARTBEAT, busy or idle), on the configured queue backend (cached a few seconds).',
      registers,
      async collect() {
        const alive = await workersAlive.get();
        if (alive !== undefined) this.set(alive);
      },
    });
    new Gauge({
      name: 'envdata_queue_jobs',
      help: 'Jobs of the ingest queue (chunks and snapshots) by BullMQ state, on the configured queue backend (cached a few seconds).',
      labelNames: ['state'],
      registers,
      async collect() {
        const counts = await jobs.get();
        if (counts === undefined) return;
        for (const state of QUEUE_JOB_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });
    // Both gauges come from one reading; each keeps what it last set when it fails.
    new Gauge({
      name: 'envdata_freshness_lag_seconds',
      help: "The worst lag of the dataset: seconds from the end of a location's last landed hour to now, over the active locations that have data (those with none count in envdata_locations_stale).",
      labelNames: ['dataset'],
      registers,
      async collect() {
        for (const f of (await freshness.get()) ?? []) {
          if (f.worstLagSeconds !== null) this.set({ dataset: f.dataset }, f.worstLagSeconds);
        }
      },
    });
    new Gauge({
      name: 'envdata_locations_stale',
      help: 'Active locations whose last landed hour lags more than ENVDATA_FRESHNESS_MAX_LAG, or with nothing landed, by dataset (as `envdata status --check`).',
      labelNames: ['dataset'],
      registers,
      async collect() {
        for (const f of (await freshness.get()) ?? []) this.set({ dataset: f.dataset }, f.stale);
      },
    });
    new Gauge({
      name: 'envdata_export_lag_seconds',
      help: 'Seconds since the oldest change of the warehouse (facts, daily rollups, locations) that the last `envdata export parquet` did not see; 0 when it saw every change; absent until an export finished (cached a few seconds).',
      registers,
      async collect() {
        const lag = await exportLag.get();
        if (lag !== undefined) this.set(lag);
      },
    });
    new Gauge({
      name: 'envdata_quota_used_calls',
      help: "Calls counted in the current window of the provider's calendar (day, month) by every worker, against ENVDATA_QUOTA or ENVDATA_BUDGET (cached a few seconds); absent without a quota.",
      labelNames: ['window'],
      registers,
      async collect() {
        for (const q of (await quota.get()) ?? []) this.set({ window: q.window }, q.used);
      },
    });
    new Gauge({
      name: 'envdata_quota_limit_calls',
      help: "The window's cap in calls: ENVDATA_QUOTA's day or month, or for the month the calls ENVDATA_BUDGET pays for at ENVDATA_PRICE_PER_CALL when tighter.",
      labelNames: ['window'],
      registers,
      async collect() {
        for (const q of (await quota.get()) ?? []) this.set({ window: q.window }, q.limit);
      },
    });
  }

  /** The Prometheus text of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  serviceCall(endpoint: string, status: string): void {
    this.apiCalls.inc({ endpoint, status });
  }

  landed(dataset: Dataset, rows: number, quarantined: number): void {
    // Incremented by 0 too: both series exist from the dataset's first landing.
    this.rowsLanded.inc({ dataset }, rows);
    this.quarantined.inc({ dataset }, quarantined);
  }

  chunkFinished(dataset: Dataset, outcome: ChunkJobOutcome, seconds: number): void {
    this.chunkSeconds.observe({ dataset, outcome }, seconds);
  }

  rateLimitWait(reason: RateLimitWaitReason): void {
    this.rateLimitWaits.inc({ reason });
  }

  answerShape(dataset: Dataset, source: string, shape: string): void {
    this.answerShapes.inc({ dataset, source, shape });
  }

  /** An attempt to deliver an alert of `event` to one target ended with `outcome`. */
  notification(event: string, outcome: 'delivered' | 'failed' | 'dropped'): void {
    this.notifications.inc({ event, outcome });
  }
}
