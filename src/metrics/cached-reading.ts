import { coerceError } from '../errors/coerce-error.js';
import type { Logger } from '../logging/create-logger.js';

export interface CachedReadingOptions<T> {
  /** How log lines name the source: `chunks`, `queue jobs`, `freshness`. */
  readonly name: string;
  readonly read: () => Promise<T>;
  /** A value younger than this is served without reading again. */
  readonly ttlMs: number;
  /** Longest a scrape waits for a read; a slower one finishes in the background. */
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/**
 * A value read from Postgres or the queue at scrape time, bounded and cached: reads at most one
 * at a time and not more than once per `ttlMs`, and waits for one at most `timeoutMs`. When the
 * source fails or is slow, the last value is served (`undefined` before the first): a source
 * that is down never fails a scrape. A failure is logged once, until the source answers again.
 */
export class CachedReading<T> {
  private value: T | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private failing = false;

  constructor(private readonly options: CachedReadingOptions<T>) {}

  /** The value to report now: fresh, or the last one read. */
  async get(now = Date.now()): Promise<T | undefined> {
    if (now - this.readAt < this.options.ttlMs) return this.value;
    this.reading ??= this.readAgain().finally(() => (this.reading = undefined));
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.timeoutMs);
    });
    try {
      await Promise.race([this.reading, expired]);
    } finally {
      clearTimeout(timer);
    }
    return this.value;
  }

  private async readAgain(): Promise<void> {
    const { name, logger } = this.options;
    try {
      this.value = await this.options.read();
      this.readAt = Date.now();
      if (this.failing) logger.info({ source: name }, 'metrics source answers again');
      this.failing = false;
    } catch (error) {
      // Read again at the next scrape, not at every one of a burst.
      this.readAt = Date.now();
      if (!this.failing) {
        logger.warn(
          { source: name, err: coerceError(error) },
          'metrics source failed: its gauges keep their last value until it answers again',
        );
      }
      this.failing = true;
    }
  }
}
