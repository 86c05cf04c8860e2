import { settlesWithin } from '../lifecycle/settles-within.js';

/**
 * After the shutdown deadline aborts the calls in flight, how long their jobs may take to hand
 * their chunks back (a ledger update, a job moved back to wait) before they are left for stalled
 * recovery. Together with closing the rest, the process exits within the deadline plus a second.
 */
export const WIND_UP_MS = 500;
/** While they wind up, how often what the pool still runs in Postgres is cancelled again. */
const CANCEL_EVERY_MS = 50;

/** Resolves once no job is being processed (`active`: the jobs' promises, removed as they settle). */
export async function whenIdle(active: ReadonlySet<Promise<unknown>>): Promise<void> {
  while (active.size > 0) await Promise.allSettled([...active]);
}

/**
 * After the deadline: waits up to `WIND_UP_MS` for the jobs to hand their chunks back, and
 * meanwhile cancels on the server what the pool still runs. A landing waiting in Postgres (for
 * a lock, say) rolls back and its job hands the chunk back like an aborted call; one queued
 * for the connection behind it may come to wait next, so this goes on until the jobs are done.
 */
export async function windUpJobs(
  active: ReadonlySet<Promise<unknown>>,
  cancelDatabaseStatements: () => Promise<void>,
): Promise<void> {
  const endBy = Date.now() + WIND_UP_MS;
  let idle = false;
  const idling = whenIdle(active).then(() => {
    idle = true;
  });
  while (!idle && Date.now() < endBy) {
    await settlesWithin(cancelDatabaseStatements(), endBy - Date.now());
    await settlesWithin(idling, Math.min(CANCEL_EVERY_MS, endBy - Date.now()));
  }
}
