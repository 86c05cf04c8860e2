import type { RedisClient } from '../../src/queue/create-redis.js';
import { sql, type Kysely } from 'kysely';
import { POSTGRES_QUEUE_SCHEMA } from '../../src/queue/postgres-queue-schema.js';
import type { Database } from '../../src/warehouse/schema.js';

/**
 * Bytes Redis holds for the keys of BullMQ prefix `prefix` (`MEMORY USAGE`, every element
 * counted). Summed over the prefix's keys rather than read from `used_memory`: the Redis is shared
 * with whatever else runs on this machine, whose keys come and go meanwhile.
 */
export async function redisQueueBytes(redis: RedisClient, prefix: string): Promise<number> {
  let bytes = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    for (const [error, used] of (await pipeline.exec()) ?? []) {
      if (!error) bytes += Number(used ?? 0);
    }
  } while (cursor !== '0');
  return bytes;
}

/** The tables (and sequences) of the Postgres queue's schema. */
const QUEUE_RELATIONS = sql`from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where n.nspname = ${POSTGRES_QUEUE_SCHEMA} and c.relkind in ('r', 'S')`;

/**
 * Bytes on disk of the Postgres queue's tables: `pg_total_relation_size` (heap, indexes, TOAST)
 * summed over schema `envdata_queue`.
 */
export async function postgresQueueBytes(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{ bytes: number }>`
    select coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 as bytes
    ${QUEUE_RELATIONS}`.execute(db);
  return rows[0]?.bytes ?? 0;
}

/**
 * Rewrites the Postgres queue's tables to the size of their live rows (`VACUUM FULL`), so that a
 * queue filled next is measured in pages of its own, not in the space earlier jobs left free.
 * Nothing may use the queue meanwhile: it waits at most 10 s for its locks.
 */
export async function compactPostgresQueue(db: Kysely<Database>): Promise<void> {
  const { rows } = await sql<{ name: string }>`
    select c.oid::regclass::text as name ${QUEUE_RELATIONS} and c.relkind = 'r'`.execute(db);
  await db.connection().execute(async (connection) => {
    await sql`set lock_timeout = '10s'`.execute(connection);
    try {
      for (const { name } of rows) await sql`vacuum full ${sql.raw(name)}`.execute(connection);
    } finally {
      await sql`reset lock_timeout`.execute(connection);
    }
  });
}
