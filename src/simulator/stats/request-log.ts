/** How a logged request was answered: an HTTP status, or `reset` / `hang` (see `SimulatorStats`). */
export type LoggedAnswer = number | 'reset' | 'hang';

/** One request to a service endpoint as the simulator saw it. The key is never kept. */
export interface LoggedRequest {
  /** When it arrived, epoch ms of the system clock (not the simulator's `now`). */
  readonly at: number;
  /** Endpoint id (`pollen-history-by-lat-lng`, …). */
  readonly endpoint: string;
  /** The query string as sent (`lat=…&lng=…&start=…&end=…`). */
  readonly query: string;
  /** The client's address as the simulator's socket sees it (which host called). */
  readonly remote: string;
  /** How it was answered; `undefined` while it is still pending (a `latency` or `hang` fault). */
  readonly answer: LoggedAnswer | undefined;
  /** When it was answered, epoch ms; `undefined` while pending. */
  readonly answeredAt: number | undefined;
}

interface Entry {
  at: number;
  endpoint: string;
  query: string;
  remote: string;
  answer: LoggedAnswer | undefined;
  answeredAt: number | undefined;
}

/**
 * The most recent `capacity` service requests, oldest first, each with its query and client
 * address: which windows were asked for how often, by which host, and when. Off (capacity 0)
 * unless the simulator is started with `requestLog`; a benchmark's millions of requests keep
 * nothing.
 */
export class RequestLog {
  #entries: Entry[] = [];

  constructor(readonly capacity: number) {}

  /** Logs a request as it arrives; `answered` completes the entry. */
  arrive(
    endpoint: string,
    query: string,
    remote: string | undefined,
  ): { answered(answer: LoggedAnswer): void } {
    if (this.capacity === 0) return NOT_LOGGED;
    const entry: Entry = {
      at: Date.now(),
      endpoint,
      query,
      remote: remote ?? '(unknown)',
      answer: undefined,
      answeredAt: undefined,
    };
    this.#entries.push(entry);
    // Drop the oldest in batches: one copy per `capacity` requests, not one per request.
    if (this.#entries.length >= 2 * this.capacity) {
      this.#entries = this.#entries.slice(-this.capacity);
    }
    return {
      answered(answer) {
        entry.answer = answer;
        entry.answeredAt = Date.now();
      },
    };
  }

  /** A copy of the log, oldest first. */
  entries(): LoggedRequest[] {
    return this.#entries.slice(-this.capacity).map((e) => ({ ...e }));
  }

  clear(): void {
    this.#entries = [];
  }
}

const NOT_LOGGED = Object.freeze({ answered: () => undefined });
