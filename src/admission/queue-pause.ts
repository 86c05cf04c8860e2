import type { Queue } from 'bullmq';

/**
 * How a pause of every worker is told from an ordinary limiter window: `rateLimit(ms)` fills the
 * limiter with 2^53 − 1 points on either backend (Redis `SET <prefix>:<queue>:limiter`, Postgres
 * `envdata_queue.rate_limit`), which no `limiter.max` reaches. 2^31 − 1 fits the Postgres
 * backend's integer parameter and is above every `max` envdata sets.
 */
const PAUSE_POINTS = 2_147_483_647;

/**
 * The pause of every worker of `queue` in force now (set by `worker.rateLimit`: a 429, a 422,
 * a spent call budget), as the milliseconds left; 0 when none. Reads BullMQ's own limiter, on
 * either backend, without touching it.
 */
export async function queuePauseMs(queue: Queue): Promise<number> {
  return Math.max(0, await queue.getRateLimitTtl(PAUSE_POINTS));
}

/**
 * Ends the pause of every worker of `queue` at once (`envdata resume`); the workers take jobs
 * again within BullMQ's `maximumRateLimitDelay` (30 s). Also clears the limiter's current
 * window, which only lets the next window's calls start a moment early. Returns the milliseconds
 * the pause had left (0: there was none).
 */
export async function clearQueuePause(queue: Queue): Promise<number> {
  const left = await queuePauseMs(queue);
  if (left > 0) await queue.removeRateLimitKey();
  return left;
}

/**
 * Shortens a pause of `queue` longer than `maxMs` to `maxMs` (one set before ENVDATA_MAX_PAUSE
 * existed or was lowered); a shorter one is left as it is. Returns the milliseconds it had left
 * when it was shortened, else 0.
 */
export async function capQueuePause(queue: Queue, maxMs: number): Promise<number> {
  const left = await queuePauseMs(queue);
  if (left <= maxMs) return 0;
  await queue.rateLimit(maxMs);
  return left;
}
