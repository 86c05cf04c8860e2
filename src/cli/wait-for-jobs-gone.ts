import { setTimeout } from 'node:timers/promises';
import type { Queue } from 'bullmq';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';

/** How often the jobs still there are looked for. */
const POLL_MS = 500;

/**
 * Waits until none of the jobs `ids` is in `queue` any more: envdata's jobs are removed when they
 * complete or fail for good (`removeOnComplete`, `removeOnFail`), and a queue that lost them
 * (Redis flushed) has none left either. Rides out an outage of the queue (`outages`); returns
 * early when `signal` aborts.
 */
export async function waitForJobsGone(
  queue: Pick<Queue, 'getJob'>,
  ids: readonly string[],
  options: { readonly signal: AbortSignal; readonly outages: OutageMonitor },
): Promise<void> {
  let left = ids;
  while (left.length > 0 && !options.signal.aborted) {
    try {
      const jobs = await Promise.all(left.map((id) => queue.getJob(id)));
      left = left.filter((_, i) => jobs[i] !== undefined);
    } catch (error) {
      if (!options.outages.report(error)) throw error;
      await options.outages.whenAvailable(options.signal);
      continue;
    }
    if (left.length > 0) {
      await setTimeout(POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }
}
