import type { Uses } from '../runtime/app-resources.js';
import type { Logger } from '../logging/create-logger.js';
import { coerceError } from '../errors/coerce-error.js';
import { settlesWithin } from '../lifecycle/settles-within.js';

/** What a `PollLoop` runs, how often, and where it says that a round failed. */
export interface PollLoopOptions {
  /** One round; resolves to whether it was full (more may be due at once). */
  readonly round: () => Promise<boolean>;
  /** The wait after a round that was not full, and after a failed one. */
  readonly pollMs: number;
  /** Told of every failure first: one that is an outage of Postgres or Redis is not logged. */
  readonly app: Uses<'outages'>;
  readonly log: Logger;
  /** The warning logged for any other failure (`could not deliver alerts; trying again`). */
  readonly failure: string;
}

/**
 * Runs an outbox dispatcher's rounds, one at a time: the next at once after a full round, else
 * after `pollMs`, and after `pollMs` too when a round fails (reported to the outage monitor, or
 * logged). Its timer never holds the process open; `stop` ends the loop and waits for the round
 * under way. The alerts' dispatcher and the lineage dispatcher run theirs on it.
 */
export class PollLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: PollLoopOptions) {}

  /** Runs a round after `delayMs` (0: at the next turn), in place of the one due. */
  schedule(delayMs: number): void {
    const { round, pollMs, app, log, failure } = this.options;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = round()
        .then((full) => {
          this.running = undefined;
          if (!this.stopped) this.schedule(full ? 0 : pollMs);
        })
        .catch((error: unknown) => {
          this.running = undefined;
          if (!app.outages.report(error)) log.warn({ err: coerceError(error) }, failure);
          if (!this.stopped) this.schedule(pollMs);
        });
    }, delayMs);
    this.timer.unref();
  }

  /** Runs a round now rather than at the next poll, unless one runs or the loop is stopped. */
  wake(): void {
    if (this.stopped || this.running) return;
    this.schedule(0);
  }

  /** Schedules no more rounds and waits up to `timeoutMs` for the one under way. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.running) await settlesWithin(this.running, timeoutMs);
  }
}
