/** BullMQ queue names of envdata (keys become `<prefix>:<name>:…`). */
export const QUEUE_NAMES = {
  /** Chunks of history to fetch, normalize and land, and the snapshots of a sync. */
  ingest: 'ingest',
  /** The firings of the nightly sync's schedule. */
  sync: 'sync',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
