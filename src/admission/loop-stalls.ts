import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';

/** How often the monitor's timer is due (ms): what it reads beyond this is a stall. */
const RESOLUTION_MS = 2;
/** The longest stall is kept over this period at least, and twice this at most. */
const PERIOD_MS = 30_000;

let histogram: IntervalHistogram | undefined;
let periodStart = 0;
let previousMaxMs = 0;

/**
 * The longest time this process's event loop was held in the last 30 to 60 seconds (ms): a
 * synchronous task, a garbage collection, or the host descheduling the process (both cores busy).
 * What the pace's margin takes in until it is measured (`PaceMargin`).
 *
 * One monitor per process (`monitorEventLoopDelay`: a timer every 2 ms, keeping no process alive; a
 * stall is read to within that), started by the first pacer that asks.
 */
export function longestLoopStallMs(now = performance.now()): number {
  if (histogram === undefined) {
    histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    periodStart = now;
  }
  // The histogram reads each interval between the timer's runs, in nanoseconds.
  const currentMaxMs = histogram.count > 0 ? histogram.max / 1e6 - RESOLUTION_MS : 0;
  if (now - periodStart >= PERIOD_MS) {
    previousMaxMs = currentMaxMs;
    histogram.reset();
    periodStart = now;
  }
  return Math.max(0, previousMaxMs, currentMaxMs);
}
