import type { App } from '../../src/app.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';

/**
 * Reads state (the ledger, the queue) until `read` returns something, and returns it; rejects
 * with `describe(last)` after `timeoutMs`. The one place tests wait: on state, never on a
 * fixed delay for work to happen.
 */
export async function pollUntil<T, S = unknown>(
  read: () => Promise<{ done: T } | { last: S }>,
  options: { timeoutMs?: number; everyMs?: number; describe: (last: S | undefined) => string },
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: S | undefined;
  while (Date.now() < deadline) {
    const state = await read();
    if ('done' in state) return state.done;
    last = state.last;
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 25));
  }
  throw new Error(options.describe(last));
}

/** Resolves once the app's ingest queue holds no job a worker would still take. */
export function waitForQueueEmpty(app: App, timeoutMs = 30_000): Promise<void> {
  const queue = app.queues.queue(QUEUE_NAMES.ingest);
  return pollUntil(
    async () => {
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      return Object.values(counts).every((n) => n === 0) ? { done: undefined } : { last: counts };
    },
    { timeoutMs, describe: (c) => `the ingest queue did not drain in time: ${JSON.stringify(c)}` },
  );
}
