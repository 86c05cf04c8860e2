import { z } from 'zod';
import { QUEUE_BACKENDS } from '../../config/config.js';
import type { EnvdataStatus } from '../../status/collect-status.js';
import { count, isoTimestamp } from './json-document.js';

/** Postgres, as `status --json` and `status RUN --json` report it. */
export const postgresHealthJson = z
  .object({
    url: z.string().describe('DATABASE_URL, password masked'),
    ok: z.boolean().describe('whether Postgres answered'),
    problem: z.string().nullable().describe('why not, in one line; `null` when `ok`'),
    pendingMigrations: z
      .array(z.string())
      .nullable()
      .describe(
        'migrations not yet applied, by name, then repairs applied ones left (`repair <name>`): `envdata migrate` makes both; `null` when Postgres did not answer',
      ),
  })
  .describe('the warehouse database');

const jobCounts = z
  .object({
    waiting: count.describe('jobs waiting for a worker'),
    active: count.describe('jobs a worker is on now'),
    delayed: count.describe('jobs waiting for a retry’s backoff or a rate limit'),
    failed: count.describe('jobs BullMQ gave up on (the ledger keeps the chunk’s failure)'),
    prioritized: count.describe('jobs waiting for a worker, in priority order (runs’ chunks)'),
  })
  .describe('the queue’s jobs by state');

/** The queue's backend (Redis, or Postgres with ENVDATA_QUEUE_BACKEND=postgres). */
export const queueHealthJson = z
  .object({
    backend: z.enum(QUEUE_BACKENDS).describe('ENVDATA_QUEUE_BACKEND: `redis` or `postgres`'),
    url: z
      .string()
      .describe(
        'REDIS_URL (or DATABASE_URL on the postgres backend), password masked; with REDIS_CLUSTER_NODES, the cluster’s nodes as listed there (`host:port,host:port`)',
      ),
    ok: z.boolean().describe('whether the queue answered'),
    problem: z.string().nullable().describe('why not, in one line; `null` when `ok`'),
    queues: z
      .record(z.string().meta({ title: 'queue' }), jobCounts)
      .nullable()
      .describe(
        'jobs by state in each queue (`ingest`, `sync`): waiting, active, delayed, failed, prioritized; `null` when the queue did not answer',
      ),
    workers: z
      .array(
        z.object({
          host: z.string().describe('host name the worker announced'),
          pid: count.describe('its process id'),
          concurrency: count.describe('chunks it works on at once'),
          ageSeconds: z.number().nonnegative().describe('seconds since it connected'),
          idleSeconds: z
            .number()
            .nonnegative()
            .describe(
              'seconds since its queue connection was last active (near 0 while it waits for jobs; it grows while every slot is busy, which `alive` tells apart from a dead worker); without a connection, since its last heartbeat',
            ),
          alive: z
            .boolean()
            .describe(
              'whether its last heartbeat has not expired (the worker reports itself every ENVDATA_WORKER_HEARTBEAT, busy or idle; silent for three of these, it is presumed gone)',
            ),
          lastHeartbeatAt: isoTimestamp
            .nullable()
            .describe(
              'when it last reported itself alive; `null` for a worker connected without a heartbeat (an envdata older than heartbeats, or one whose event loop is stuck)',
            ),
          busy: count
            .nullable()
            .describe('jobs it was working on at that heartbeat; `null` without one'),
          connected: z
            .boolean()
            .describe(
              'whether its queue connection is open now; `false` for a worker killed (or whose host is unreachable) whose last heartbeat has not expired yet',
            ),
        }),
      )
      .nullable()
      .describe(
        'workers of the `ingest` queue: every one alive by its heartbeat, and every one connected without one; `null` when the queue did not answer',
      ),
    pausedUntil: isoTimestamp
      .nullable()
      .describe(
        'when the pause of every worker in force ends (the service throttled, or the call budget is spent; at most ENVDATA_MAX_PAUSE from when it was set); `null` when there is none or the queue did not answer. `envdata resume` ends it at once',
      ),
  })
  .describe('the job queue');

export type PostgresHealthJson = z.infer<typeof postgresHealthJson>;
export type QueueHealthJson = z.infer<typeof queueHealthJson>;

/** `collectStatus`'s health of Postgres and of the queue, as JSON. */
export function serviceHealthJson(status: EnvdataStatus): {
  postgres: PostgresHealthJson;
  queue: QueueHealthJson;
} {
  const { postgres, redis } = status;
  return {
    postgres: {
      url: postgres.url,
      ok: postgres.ok,
      problem: postgres.problem ?? null,
      pendingMigrations: postgres.pendingMigrations ? [...postgres.pendingMigrations] : null,
    },
    queue: {
      backend: redis.backend,
      url: redis.url,
      ok: redis.ok,
      problem: redis.problem ?? null,
      queues: redis.queues
        ? Object.fromEntries(
            Object.entries(redis.queues).map(([name, c]) => [
              name,
              {
                waiting: c.waiting ?? 0,
                active: c.active ?? 0,
                delayed: c.delayed ?? 0,
                failed: c.failed ?? 0,
                prioritized: c.prioritized ?? 0,
              },
            ]),
          )
        : null,
      workers: redis.workers
        ? redis.workers.map((w) => ({
            host: w.host,
            pid: w.pid,
            concurrency: w.concurrency,
            ageSeconds: w.ageSeconds,
            idleSeconds: w.idleSeconds,
            alive: w.alive,
            lastHeartbeatAt: w.lastHeartbeatAt ? w.lastHeartbeatAt.toISOString() : null,
            busy: w.busy,
            connected: w.connected,
          }))
        : null,
      pausedUntil: redis.pausedUntil ? redis.pausedUntil.toISOString() : null,
    },
  };
}
