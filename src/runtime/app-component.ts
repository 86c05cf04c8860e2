/**
 * A long-running part of an envdata process that the app starts and stops: an ingest worker,
 * the sync scheduler, the HTTP server. `App.start()` starts its components in order and
 * `App.stop()` stops them in reverse order, within the shutdown timeout.
 */
export interface AppComponent {
  /** How log lines name it: `worker`, `scheduler`, `http`. */
  readonly name: string;
  /** Resolves once it is running (listening, taking jobs). */
  start(): Promise<void>;
  /**
   * Stops it: work in hand may finish for up to `timeoutMs` (what is left of
   * ENVDATA_SHUTDOWN_TIMEOUT_MS), then it is abandoned, so that a service that is down cannot
   * hold the exit. It may take a moment more to hand abandoned work back (`STOP_GRACE_MS`).
   */
  stop(timeoutMs: number): Promise<void>;
}
