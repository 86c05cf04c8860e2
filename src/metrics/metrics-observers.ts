import type { Dataset } from '../types.js';
import type { ChunkJobOutcome, MetricsObserver, RateLimitWaitReason } from './metrics-observer.js';

/**
 * The observers of one process, told of everything as one: the app's Prometheus metrics and
 * whatever a component adds (a worker's per-minute call counts). Built disabled (`enabled:
 * false`), it keeps none and every report is a no-op: how a benchmark measures the cost of
 * metrics.
 */
export class MetricsObservers implements MetricsObserver {
  private list: readonly MetricsObserver[] = [];

  constructor(readonly enabled = true) {}

  /** Adds `observer` (not when disabled); returns what removes it. */
  add(observer: MetricsObserver): () => void {
    if (!this.enabled) return () => undefined;
    this.list = [...this.list, observer];
    return () => {
      this.list = this.list.filter((o) => o !== observer);
    };
  }

  serviceCall(endpoint: string, status: string): void {
    for (const o of this.list) o.serviceCall(endpoint, status);
  }

  landed(dataset: Dataset, rows: number, quarantined: number): void {
    for (const o of this.list) o.landed(dataset, rows, quarantined);
  }

  chunkFinished(dataset: Dataset, outcome: ChunkJobOutcome, seconds: number): void {
    for (const o of this.list) o.chunkFinished(dataset, outcome, seconds);
  }

  rateLimitWait(reason: RateLimitWaitReason): void {
    for (const o of this.list) o.rateLimitWait(reason);
  }

  answerShape(dataset: Dataset, source: string, shape: string): void {
    for (const o of this.list) o.answerShape?.(dataset, source, shape);
  }
}
