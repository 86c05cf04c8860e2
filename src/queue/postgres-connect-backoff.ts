import type { EventEmitter } from 'node:events';
import { setTimeout } from 'node:timers/promises';
import { isServiceUnavailable } from '../errors/is-service-unavailable.js';
import { backoffMs } from '../lifecycle/backoff.js';

/** The pause after a failed connect: 250 ms, doubling per failure up to 5 s. */
const PAUSE = { baseMs: 250, capMs: 5_000 } as const;

/** What of a BullMQ object on its Postgres backend (bullmq 6.x, `postgres/`) this file touches. */
interface Memoized {
  readyPromise?: Promise<void>;
  waitUntilReady(): Promise<void>;
}

interface PostgresBackend extends Memoized {
  connection: Memoized;
  query(text: string, params?: unknown[]): Promise<unknown>;
}

export interface PostgresConnectBackoff {
  /** Ends a pause at once (closing): the object's last queries fail as BullMQ makes them. */
  close(): void;
}

/**
 * Keeps a BullMQ object on the Postgres backend from spinning while Postgres refuses
 * connections (down, or `too many clients already` at max_connections), and lets it recover.
 *
 * BullMQ memoizes its connection's first readiness (`PostgresConnection.waitUntilReady` and
 * `PostgresQueueBackend.waitUntilReady`, which run the pool's first connect and the migration):
 * when that connect fails, the rejection is kept and every later query rejects at once, without
 * I/O. The Worker's main loop (`Worker.mainLoop` → `retryIfFailed(_getNextJob)` →
 * `moveToActive` → `backend.query`) then emits the error and asks again at once, so it turns in
 * microtasks only: a core at 100 %, no timer or signal handler ever runs (SIGTERM is not
 * honoured), for good, even after connections free up. Here, a failed readiness is forgotten, so
 * the next query connects again, and after a failed connect every query waits a pause first
 * (`PAUSE`: 250 ms doubling to 5 s), so the loop turns at most once per pause. What the operator sees
 * comes from the errors BullMQ emits (the outage monitor's one line), not from here.
 */
export function addPostgresConnectBackoff(bullObject: unknown): PostgresConnectBackoff {
  const backend = backendOf(bullObject);
  forgetFailure(backend.connection);
  forgetFailure(backend);
  const closing = new AbortController();
  // A Worker says so when its `close()` begins: its main loop must not sit out a pause then.
  (bullObject as Partial<EventEmitter>).once?.('closing', () => closing.abort());
  let failures = 0;
  let pauseUntil = 0;
  const query = backend.query.bind(backend);
  backend.query = async (text, params) => {
    const pause = pauseUntil - Date.now();
    if (pause > 0 && !closing.signal.aborted) {
      await setTimeout(pause, undefined, { signal: closing.signal }).catch(() => undefined);
    }
    try {
      // Readiness first: a failed one is forgotten, so this connects (and migrates) again.
      await backend.waitUntilReady();
      const result = await query(text, params);
      failures = 0;
      return result;
    } catch (error) {
      // Queries failing together (one per job slot) start one pause, not one each.
      if (isServiceUnavailable(error) && Date.now() >= pauseUntil) {
        pauseUntil = Date.now() + backoffMs(failures, PAUSE);
        failures = Math.min(failures + 1, 16);
      }
      throw error;
    }
  };
  return { close: () => closing.abort() };
}

/** Makes `target.waitUntilReady()` forget a rejected readiness, so the next call tries again. */
function forgetFailure(target: Memoized): void {
  const waitUntilReady = target.waitUntilReady.bind(target);
  target.waitUntilReady = () => {
    const ready = waitUntilReady();
    // Set synchronously by the call above (BullMQ assigns it before its first await).
    const memo = target.readyPromise;
    return ready.catch((error: unknown) => {
      if (target.readyPromise === memo) target.readyPromise = undefined;
      throw error;
    });
  };
}

/** The Postgres backend of a BullMQ Queue, Worker or QueueEvents; throws if its shape changed. */
function backendOf(bullObject: unknown): PostgresBackend {
  const backend = (bullObject as { backend?: Partial<PostgresBackend> }).backend;
  const connection = backend?.connection;
  if (
    typeof backend?.query !== 'function' ||
    typeof backend.waitUntilReady !== 'function' ||
    typeof connection?.waitUntilReady !== 'function'
  ) {
    throw new Error(
      "BullMQ's Postgres backend no longer has backend.query and connection.waitUntilReady: check src/queue/postgres-connect-backoff.ts against the installed bullmq",
    );
  }
  return backend as PostgresBackend;
}
