import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { QUEUE_BACKENDS, type Config, type QueueBackend } from '../../src/config/config.js';
import { configFromDefaults, type Environment } from '../../src/config/load-config.js';
import { withDatabase } from '../../src/warehouse/database-url.js';
import './test-services.js';
import { adminQuery } from '../../scripts/lib/admin-query.js';

export interface TestEnvironment {
  /** This file's own database, cloned from the migrated template. */
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** This file's own BullMQ prefix. */
  readonly queuePrefix: string;
  /**
   * The queue backend of this file's configs: the option of `useTestEnvironment`, else
   * ENVDATA_TEST_QUEUE_BACKEND, else `redis`. On `postgres` the queue is in this file's database,
   * so it is as much the file's own as the Redis prefix.
   */
  readonly queueBackend: QueueBackend;
  /** A config on this file's database, prefix and queue backend, silent logs, `env` on top. */
  config(env?: Environment): Config;
  /** The environment of an `envdata` command on this file's database and prefix, `extra` on top. */
  cliEnv(extra?: Record<string, string>): Record<string, string>;
}

/**
 * Gives the calling test file its own database (a `CREATE DATABASE … TEMPLATE` clone of the
 * migrated template) and its own queue prefix, so files run in parallel. Both are removed after
 * the file.
 */
export function useTestEnvironment(options: { queueBackend?: QueueBackend } = {}): TestEnvironment {
  const services = inject('services');
  const queueBackend = options.queueBackend ?? defaultQueueBackend(services.redisAnswers);
  const suffix = randomBytes(4).toString('hex');
  const databaseName = `${services.runTag}_${suffix}`;
  const databaseUrl = withDatabase(services.postgresAdminUrl, databaseName);
  const queuePrefix = `${services.runTag}-${suffix}`;

  beforeAll(async () => {
    await adminQuery(
      services.postgresAdminUrl,
      `create database ${pg.escapeIdentifier(databaseName)} template ${pg.escapeIdentifier(services.templateDatabase)}`,
    );
  });

  afterAll(async () => {
    await adminQuery(
      services.postgresAdminUrl,
      `drop database if exists ${pg.escapeIdentifier(databaseName)} with (force)`,
    );
    if (services.redisAnswers) await deleteKeys(services.redisUrl, `${queuePrefix}:*`);
  });

  const cliEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: databaseUrl,
    REDIS_URL: services.redisUrl,
    ENVDATA_QUEUE_PREFIX: queuePrefix,
    ENVDATA_QUEUE_BACKEND: queueBackend,
    ...extra,
  });
  return {
    databaseUrl,
    redisUrl: services.redisUrl,
    queuePrefix,
    queueBackend,
    config: (env = {}) => configFromDefaults({ ...cliEnv({ LOG_LEVEL: 'silent' }), ...env }),
    cliEnv,
  };
}

/** ENVDATA_TEST_QUEUE_BACKEND, checked; or `redis`, or `postgres` where no Redis answers. */
export function defaultQueueBackend(redisAnswers = true): QueueBackend {
  // A core file names no backend: Redis where one answers, else the queue in Postgres (a machine
  // with only Node.js runs the core files too, and they must not wait on a Redis that is not there).
  const chosen = process.env.ENVDATA_TEST_QUEUE_BACKEND ?? (redisAnswers ? 'redis' : 'postgres');
  if (!(QUEUE_BACKENDS as readonly string[]).includes(chosen)) {
    throw new Error(`ENVDATA_TEST_QUEUE_BACKEND must be one of ${QUEUE_BACKENDS.join(', ')}`);
  }
  return chosen as QueueBackend;
}

async function deleteKeys(url: string, pattern: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * Whether no Redis answers here (never under CI=true, where a missing Redis fails the run). For
 * `describe.skipIf(withoutRedis())`: outside CI the suite runs on a machine without Redis, and
 * the run's last line says the Redis leg did not run.
 */
export function withoutRedis(): boolean {
  return !inject('services').redisAnswers;
}
