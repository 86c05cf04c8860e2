import { performance } from 'node:perf_hooks';

/** Milliseconds since `started` (`performance.now()`), to a tenth: a call's duration in its log line. */
export function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
