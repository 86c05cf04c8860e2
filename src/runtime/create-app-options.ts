import type { DestinationStream } from 'pino';
import type { Logger } from '../logging/create-logger.js';
import type { EnvdataMetricsOptions } from '../metrics/envdata-metrics.js';

/** Options of `createApp` (src/app.ts). */
export interface CreateAppOptions {
  /** Use this logger instead of building one from the config (tests capture lines this way). */
  logger?: Logger;
  /**
   * Where the logger built from the config writes; default standard error. The CLI passes its
   * `StatusLine` on a terminal, so log lines never collide with a progress bar.
   */
  logDestination?: DestinationStream;
  /**
   * `false`: the hot paths report to no one (`app.observers` is disabled: no Prometheus
   * counters, no per-minute call counts); how a benchmark measures what metrics cost. Otherwise
   * settings of the scrape-time gauges (tests read them uncached: `{ collectTtlMs: 0 }`).
   */
  metrics?: false | Pick<EnvdataMetricsOptions, 'collectTtlMs' | 'collectTimeoutMs'>;
}
