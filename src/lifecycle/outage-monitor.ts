import { setTimeout } from 'node:timers/promises';
import { coerceError } from '../errors/coerce-error.js';
import { isServiceUnavailable } from '../errors/is-service-unavailable.js';
import type { Logger } from '../logging/create-logger.js';

/** One service a long-running process depends on, and how to ask whether it answers. */
export interface OutageProbe {
  /** `Postgres`, `Redis`: how the operator knows it. */
  readonly name: string;
  /** Resolves when the service answers; rejects with the one-line operator message otherwise. */
  readonly check: () => Promise<void>;
}

export interface OutageMonitorOptions {
  readonly probes: readonly OutageProbe[];
  readonly logger: Logger;
  /** First delay between probes; doubles up to `maxDelayMs`. Default 250 ms. */
  readonly minDelayMs?: number;
  /** Default 5 s. */
  readonly maxDelayMs?: number;
}

/** `down` when an outage starts (what is down), `up` when every service answers again. */
export type OutageListener = (state: 'down' | 'up') => void;

/**
 * Rides out outages of Postgres and Redis for the long-running parts of one process (workers,
 * the scheduler, the watch loop of `--wait`). They hand every error they meet to `report`; one
 * that means "a service is unavailable" starts an outage, handled here once for the whole
 * process: one log line naming what is down (the same one-line message as at start) and that
 * envdata retries, probes with backoff until every service answers, and one line when they are
 * back. Reports during an outage are silent, so the log shows one line per outage, not a stack
 * per failed query.
 */
export class OutageMonitor {
  private readonly log: Logger;
  private readonly minDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly listeners = new Set<OutageListener>();
  private current: Promise<void> | undefined;
  /** Aborted by `close()`: stops the probing and releases every `whenAvailable`. */
  private readonly closing = new AbortController();

  constructor(private readonly options: OutageMonitorOptions) {
    this.log = options.logger.child({ component: 'outage' });
    this.minDelayMs = options.minDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 5_000;
  }

  /** Whether an outage is being ridden out now. */
  get ongoing(): boolean {
    return this.current !== undefined;
  }

  /**
   * Takes an error a long-running loop met. Returns `false` when it does not mean a service is
   * unavailable: the caller handles it as before (a bug, a bad answer…). Otherwise the outage is
   * handled here and the caller only needs to retry later (`whenAvailable`).
   */
  report(error: unknown): boolean {
    if (!isServiceUnavailable(error)) return false;
    if (!this.closing.signal.aborted) {
      this.current ??= this.rideOut(coerceError(error)).finally(() => {
        this.current = undefined;
      });
    }
    return true;
  }

  /** Resolves once no outage is ongoing (at once when there is none), or when `signal` aborts. */
  async whenAvailable(signal?: AbortSignal): Promise<void> {
    const outage = this.current;
    if (outage === undefined) return;
    const stop = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    await settledOrAborted(outage, stop);
  }

  /** Calls `listener` when an outage starts and when it ends; returns the unsubscribe. */
  subscribe(listener: OutageListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops probing at once; every pending `whenAvailable` resolves. */
  close(): void {
    this.closing.abort();
  }

  private async rideOut(error: Error): Promise<void> {
    const started = Date.now();
    let down = await this.probe();
    if (down.length === 0) {
      // The connection was cut but everything answers again (a restart, a dropped socket).
      this.log.debug(
        { err: { name: error.name, message: error.message } },
        'connection lost; retrying',
      );
      return;
    }
    const announced = new Set(down.map((d) => d.name));
    this.log.warn(
      { down: [...announced] },
      `${describe(down)}; retrying with backoff until ${down.length > 1 ? 'they answer' : 'it answers'}`,
    );
    this.emit('down');
    let delay = this.minDelayMs;
    const stop = this.closing.signal;
    while (!stop.aborted) {
      await setTimeout(delay, undefined, { signal: stop }).catch(() => undefined);
      delay = Math.min(this.maxDelayMs, delay * 2);
      if (stop.aborted) return;
      down = await this.probe();
      const fresh = down.filter((d) => !announced.has(d.name));
      if (fresh.length > 0) {
        for (const d of fresh) announced.add(d.name);
        this.log.warn({ down: fresh.map((d) => d.name) }, `${describe(fresh)}; retrying`);
      }
      if (down.length === 0) break;
    }
    if (stop.aborted) return;
    const names = [...announced].join(' and ');
    this.log.info(
      { downtimeMs: Date.now() - started },
      `${names} ${announced.size > 1 ? 'answer' : 'answers'} again after ${Math.round((Date.now() - started) / 1000)} s; resuming`,
    );
    this.emit('up');
  }

  /** The services that do not answer now, each with its operator message. */
  private async probe(): Promise<{ name: string; message: string }[]> {
    const results = await Promise.all(
      this.options.probes.map(async (p) => {
        try {
          await p.check();
          return undefined;
        } catch (thrown) {
          return { name: p.name, message: coerceError(thrown).message };
        }
      }),
    );
    return results.filter((r) => r !== undefined);
  }

  private emit(state: 'down' | 'up'): void {
    for (const listener of this.listeners) {
      try {
        listener(state);
      } catch (error) {
        this.log.warn({ err: error }, 'outage listener failed');
      }
    }
  }
}

/** Resolves when `promise` settles or `signal` aborts, whichever is first; never rejects. */
function settledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    promise.then(done, done);
  });
}

function describe(down: readonly { name: string; message: string }[]): string {
  return down.map((d) => `${d.name} is unavailable (${d.message})`).join('; ');
}
