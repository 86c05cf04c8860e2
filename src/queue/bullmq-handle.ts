/**
 * How long closing one queue, worker or connection may wait on Redis or Postgres. Workers wind up
 * their jobs before (IngestWorker, SyncScheduler); what is left here is a few commands, unless the
 * backend is down, where waiting would only hang the shutdown.
 */
export const CLOSE_WAIT_MS = 500;

/**
 * A BullMQ queue, worker or listener that `QueueFactory` made, with how to close it and what it
 * alone owns (its connection or pool), each step bounded by `CLOSE_WAIT_MS`.
 */
export interface BullmqHandle<T> {
  readonly object: T;
  close(): Promise<void>;
}
