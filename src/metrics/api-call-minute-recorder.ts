import type { Kysely } from 'kysely';
import { coerceError } from '../errors/coerce-error.js';
import { settlesWithin } from '../lifecycle/settles-within.js';
import type { Logger } from '../logging/create-logger.js';
import {
  addApiCallMinutes,
  deleteApiCallMinutesBefore,
  type ApiCallMinute,
} from '../warehouse/api-call-minutes.js';
import type { Database } from '../warehouse/schema.js';
import { NO_METRICS, type MetricsObserver } from './metrics-observer.js';

const MINUTE_MS = 60_000;

export interface ApiCallMinuteRecorderOptions {
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  /** Takes an error meaning Postgres is down (said once per outage): `true` if so. */
  readonly outages?: { report(error: unknown): boolean };
  /** How often the counts are added to the table. Default 5 s. */
  readonly flushEveryMs?: number;
  /** Minutes older than this are deleted, at most once per `pruneEveryMs`. Default 7 days. */
  readonly retentionMs?: number;
  /** Default 1 hour. */
  readonly pruneEveryMs?: number;
  /**
   * Most minute × endpoint counts kept while Postgres does not take them (about 9 hours of 13
   * endpoints at the default); beyond, the oldest are dropped. Default 7,000.
   */
  readonly maxKeptCounts?: number;
  readonly now?: () => number;
}

interface Counts {
  calls: number;
  throttled: number;
  failed: number;
}

/**
 * A worker's calls to the service per minute and endpoint, added to `envdata.api_call_minute`
 * (`calls = calls + excluded.calls`) every few seconds in the background and once more on
 * `stop()`: what the console's rate-limit chart reads, summed over every worker. Counting is a
 * map update per call; a flush never fails nor slows a job: a failed one keeps its counts for
 * the next (bounded by `maxKeptCounts`). Now and then it deletes minutes past the retention.
 */
export class ApiCallMinuteRecorder implements MetricsObserver {
  /** Minute (epoch ms) → endpoint → counts not flushed yet. */
  private pending = new Map<number, Map<string, Counts>>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private prunedAt = Number.NEGATIVE_INFINITY;
  private failing = false;
  private dropped = false;
  private readonly now: () => number;
  private readonly log: Logger;

  readonly landed = NO_METRICS.landed;
  readonly chunkFinished = NO_METRICS.chunkFinished;
  readonly rateLimitWait = NO_METRICS.rateLimitWait;

  constructor(private readonly options: ApiCallMinuteRecorderOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.logger.child({ component: 'api-call-minutes' });
  }

  serviceCall(endpoint: string, status: string): void {
    const t = this.now();
    const minute = t - (t % MINUTE_MS);
    let endpoints = this.pending.get(minute);
    if (!endpoints) this.pending.set(minute, (endpoints = new Map()));
    let counts = endpoints.get(endpoint);
    if (!counts) endpoints.set(endpoint, (counts = { calls: 0, throttled: 0, failed: 0 }));
    counts.calls += 1;
    if (status === '429') counts.throttled += 1;
    else if (status === 'error' || status[0] !== '2') counts.failed += 1;
  }

  /** Flushes every `flushEveryMs` from now on, off the event loop's keep-alive. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.options.flushEveryMs ?? 5_000);
    this.timer.unref();
  }

  /**
   * Adds what was counted to the table (one statement), waiting for a flush under way first.
   * Never rejects: a failure is logged once until a flush succeeds again.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    this.flushing = this.write().finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /** Stops the timer and flushes once more, for at most `timeoutMs`. */
  async stop(timeoutMs: number): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await settlesWithin(this.flush(), timeoutMs);
  }

  private async write(): Promise<void> {
    const taken = this.pending;
    this.pending = new Map();
    const rows: ApiCallMinute[] = [];
    for (const [minute, endpoints] of taken) {
      for (const [endpoint, c] of endpoints)
        rows.push({ minute: new Date(minute), endpoint, ...c });
    }
    try {
      await addApiCallMinutes(this.options.db, rows);
      if (this.failing) this.log.info('call counts are added to envdata.api_call_minute again');
      this.failing = false;
      this.dropped = false;
    } catch (error) {
      this.keep(taken);
      if (!this.failing && !this.options.outages?.report(error)) {
        this.log.warn(
          { err: coerceError(error) },
          'could not add call counts to envdata.api_call_minute; kept for the next flush',
        );
      }
      this.failing = true;
      return;
    }
    await this.prune();
  }

  /** Puts counts a failed flush took back, dropping the oldest minutes beyond the bound. */
  private keep(taken: Map<number, Map<string, Counts>>): void {
    for (const [minute, endpoints] of taken) {
      let into = this.pending.get(minute);
      if (!into) this.pending.set(minute, (into = new Map()));
      for (const [endpoint, c] of endpoints) {
        const k = into.get(endpoint);
        if (!k) into.set(endpoint, c);
        else {
          k.calls += c.calls;
          k.throttled += c.throttled;
          k.failed += c.failed;
        }
      }
    }
    const max = this.options.maxKeptCounts ?? 7_000;
    let kept = 0;
    for (const endpoints of this.pending.values()) kept += endpoints.size;
    if (kept <= max) return;
    for (const minute of [...this.pending.keys()].sort((a, b) => a - b)) {
      if (kept <= max) break;
      kept -= this.pending.get(minute)!.size;
      this.pending.delete(minute);
    }
    if (!this.dropped) {
      this.log.warn(
        { kept: max },
        'envdata.api_call_minute has not taken call counts for long: the oldest minutes are dropped',
      );
    }
    this.dropped = true;
  }

  private async prune(): Promise<void> {
    const now = this.now();
    if (now - this.prunedAt < (this.options.pruneEveryMs ?? 3_600_000)) return;
    this.prunedAt = now;
    const before = new Date(now - (this.options.retentionMs ?? 7 * 86_400_000));
    try {
      await deleteApiCallMinutesBefore(this.options.db, before);
    } catch (error) {
      this.log.debug({ err: coerceError(error) }, 'could not delete old call counts; later');
    }
  }
}
