import type { Location } from '../../src/locations/location.js';
import { metricsRoute } from '../../src/runtime/metrics-route.js';
import { benchApp, timedBackfill, type BenchTarget } from './bench-app.js';

/** One backfill of `bench:metrics`, with metrics or without. */
export interface MetricsRun {
  readonly metrics: boolean;
  readonly chunks: number;
  readonly rows: number;
  readonly seconds: number;
  /** CPU time of this process (the worker; the simulator runs in its own) during the run. */
  readonly cpuSeconds: number;
  readonly status: string;
  /** `GET /metrics` answered during the run (with metrics). */
  readonly scrapes: number;
}

const DAY_MS = 86_400_000;

/**
 * Backfills pollen and weather over `[from, to)` at `locations` (48 h windows) with one worker of
 * `concurrency` slots against the simulator at `baseUrl`, as `envdata worker` runs it: with
 * metrics, as `--metrics-port` (the app's observers on, its HTTP server serving `/metrics`,
 * scraped every `scrapeMs` during the run); without, with the app's observers disabled (no
 * counter, no per-minute call counts) and no server.
 */
export async function measureMetricsRun(
  target: BenchTarget,
  locations: readonly Location[],
  options: {
    readonly metrics: boolean;
    readonly baseUrl: string;
    readonly to: Date;
    readonly days: number;
    readonly concurrency: number;
    readonly scrapeMs: number;
  },
): Promise<MetricsRun> {
  const app = benchApp(
    target,
    { ENVDATA_BASE_URL: options.baseUrl, ENVDATA_RATE_LIMIT: 'off' },
    undefined,
    options.metrics ? {} : { metrics: false },
  );
  let scraper: NodeJS.Timeout | undefined;
  let scrapes = 0;
  try {
    await app.start({
      worker: { concurrency: options.concurrency },
      ...(options.metrics && {
        http: { host: '127.0.0.1', port: 0, routes: [metricsRoute(app)] },
      }),
    });
    // Connected (and on Postgres, the queue's schema checked) before the clock starts.
    await app.worker!.worker.waitUntilReady();
    if (options.metrics) {
      const url = `${app.http!.url}/metrics`;
      const scrape = async () => {
        const response = await fetch(url);
        await response.text();
        if (response.ok) scrapes += 1;
      };
      await scrape(); // the registry's first read, before the clock too
      scrapes = 0;
      scraper = setInterval(() => void scrape().catch(() => undefined), options.scrapeMs);
    }
    const run = await timedBackfill(
      app,
      locations,
      { from: new Date(options.to.getTime() - options.days * DAY_MS), to: options.to },
      () => app.worker!.feed(),
    );
    return {
      metrics: options.metrics,
      chunks: run.chunks,
      rows: run.rows,
      seconds: run.seconds,
      cpuSeconds: run.cpuSeconds,
      status: run.status,
      scrapes,
    };
  } finally {
    clearInterval(scraper);
    await app.stop();
  }
}
