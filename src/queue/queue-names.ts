/** BullMQ queue names of envdata (keys become `<prefix>:<name>:…`). */
export const QUEUE_NAMES = {
  /** Chunks of history to fetch, normalize and land. */
  ingest: 'ingest',
  /** Scheduled and on-demand sync runs. */
  sync: 'sync',
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
