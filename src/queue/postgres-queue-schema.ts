/**
 * The Postgres schema BullMQ's tables live in with ENVDATA_QUEUE_BACKEND=postgres, beside the
 * warehouse's `envdata` in the database of DATABASE_URL. One database holds one installation (the
 * warehouse's schema is fixed), so the schema needs no prefix: ENVDATA_QUEUE_PREFIX is Redis's.
 * BullMQ creates and migrates it itself on first connect (its own ledger, `envdata_queue.migration`,
 * under an advisory lock), so `envdata migrate` knows nothing of it and its tables follow the
 * installed BullMQ version, not our frozen migrations.
 */
export const POSTGRES_QUEUE_SCHEMA = 'envdata_queue';
