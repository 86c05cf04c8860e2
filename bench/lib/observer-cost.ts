import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import { createLogger } from '../../src/logging/create-logger.js';
import { ApiCallMinuteRecorder } from '../../src/metrics/api-call-minute-recorder.js';
import { EnvdataMetrics } from '../../src/metrics/envdata-metrics.js';
import { MetricsObservers } from '../../src/metrics/metrics-observers.js';
import type { Database } from '../../src/warehouse/schema.js';

/** What the hot path's reports cost, measured in a loop, and what one scrape takes. */
export interface ObserverCost {
  /** CPU time of the reports one chunk makes (a call, its landing, its job's end), in µs. */
  readonly perChunkMicros: number;
  /** Rendering `/metrics` once, its gauges cached, in ms. */
  readonly scrapeMillis: number;
}

/**
 * Times the reports a chunk makes through the observers a worker has (the Prometheus metrics
 * and the per-minute call counts, never flushed here), over `chunks` chunks after a warm-up, and
 * the text of one scrape with every gauge answering from its cache.
 */
export async function measureObserverCost(
  db: Kysely<Database>,
  chunks = 200_000,
): Promise<ObserverCost> {
  const logger = createLogger({ level: 'error', format: 'json' });
  const metrics = new EnvdataMetrics({
    logger,
    collectTtlMs: 60_000,
    sources: {
      chunks: () => Promise.resolve({ queued: 10, running: 32 }),
      queueJobs: () => Promise.resolve({ waiting: 100, active: 32 }),
      freshness: () => Promise.resolve([{ dataset: 'pollen', worstLagSeconds: 3_600, stale: 0 }]),
      workersAlive: () => Promise.resolve(4),
    },
  });
  const observers = new MetricsObservers();
  observers.add(metrics);
  observers.add(new ApiCallMinuteRecorder({ db, logger }));
  const endpoints = ['pollen_history', 'weather_history'] as const;
  const datasets = ['pollen', 'weather'] as const;
  const report = (i: number) => {
    const k = i & 1;
    const dataset = datasets[k]!;
    observers.serviceCall(endpoints[k]!, '200');
    observers.landed(dataset, 48, 0);
    observers.chunkFinished(dataset, 'landed', 0.05);
  };
  for (let i = 0; i < 20_000; i++) report(i);
  const t0 = performance.now();
  for (let i = 0; i < chunks; i++) report(i);
  const perChunkMicros = ((performance.now() - t0) * 1_000) / chunks;
  await metrics.text(); // fills the caches
  const s0 = performance.now();
  const scrapes = 50;
  for (let i = 0; i < scrapes; i++) await metrics.text();
  return { perChunkMicros, scrapeMillis: (performance.now() - s0) / scrapes };
}
