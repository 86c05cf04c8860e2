import { Redis } from 'ioredis';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { EnvdataError } from '../../src/errors/envdata-error.js';
import { isServiceUnavailable } from '../../src/errors/is-service-unavailable.js';
import { SQLSTATE, hasSqlState } from '../../src/errors/pg-errors.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { redisUnavailable } from '../../src/queue/redis-unavailable.js';
import { ServiceError } from '../../src/service/service-error.js';
import { createDatabase } from '../../src/warehouse/create-database.js';
import { withoutRedis, useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
const DOWN_PG = 'postgres://postgres@127.0.0.1:1/envdata';
const DOWN_REDIS = 'redis://127.0.0.1:1';

/** What `work` rejects with. */
async function failure(work: () => Promise<unknown>): Promise<unknown> {
  return work().then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('isServiceUnavailable: errors that mean Postgres or Redis is not there', () => {
  it('a Postgres that refuses connections, through pg and through Kysely', async () => {
    const client = new pg.Client({ connectionString: DOWN_PG });
    expect(isServiceUnavailable(await failure(() => client.connect()))).toBe(true);
    const db = createDatabase({
      url: DOWN_PG,
      poolMax: 1,
      logger: createLogger({ level: 'silent', format: 'json' }),
    });
    try {
      expect(isServiceUnavailable(await failure(() => sql`select 1`.execute(db)))).toBe(true);
    } finally {
      await db.destroy();
    }
  });

  it('a Postgres connection cut by the server (57P01 admin_shutdown), and the query after', async () => {
    const victim = new pg.Client({ connectionString: env.databaseUrl });
    victim.on('error', () => undefined);
    await victim.connect();
    const killer = new pg.Client({ connectionString: env.databaseUrl });
    await killer.connect();
    try {
      const { rows } = await victim.query<{ pid: number }>('select pg_backend_pid() as pid');
      const during = victim.query('select pg_sleep(10)').then(
        () => undefined,
        (e: unknown) => e,
      );
      await pollTerminated(killer, rows[0]!.pid);
      const cut = await during;
      expect(hasSqlState(cut, SQLSTATE.adminShutdown)).toBe(true);
      expect(isServiceUnavailable(cut)).toBe(true);
      expect(isServiceUnavailable(await failure(() => victim.query('select 1')))).toBe(true);
    } finally {
      await killer.end();
      await victim.end().catch(() => undefined);
    }
  });

  it('a Postgres that takes no more connections (53300 too_many_connections)', async () => {
    // A role allowed no connection is refused with the SQLSTATE of max_connections reached.
    const role = `no_slots_${process.pid}`;
    const admin = new pg.Client({ connectionString: env.databaseUrl });
    await admin.connect();
    try {
      // With a password: the suite's own embedded server (a machine with only Node.js) asks for
      // one, and Postgres checks the limit only once the role is authenticated.
      await admin.query(`create role ${role} login password 'no-slots' connection limit 0`);
      const url = new URL(env.databaseUrl);
      url.username = role;
      url.password = 'no-slots';
      const client = new pg.Client({ connectionString: url.toString() });
      const refused = await failure(() => client.connect());
      expect(hasSqlState(refused, SQLSTATE.tooManyConnections)).toBe(true);
      expect(isServiceUnavailable(refused)).toBe(true);
    } finally {
      await admin.query(`drop role if exists ${role}`);
      await admin.end();
    }
  });

  it('a Redis that refuses connections, once ioredis gives up on the command', async () => {
    const redis = new Redis(DOWN_REDIS, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    try {
      const error = await failure(() => redis.ping());
      expect((error as Error).name).toBe('MaxRetriesPerRequestError');
      expect(isServiceUnavailable(error)).toBe(true);
    } finally {
      redis.disconnect();
    }
  });

  it.skipIf(withoutRedis())('a Redis connection killed by the server', async () => {
    const victim = new Redis(env.redisUrl, { retryStrategy: () => null });
    victim.on('error', () => undefined);
    const killer = new Redis(env.redisUrl);
    try {
      const id = await victim.client('ID');
      const closed = new Promise((resolve) => victim.once('end', resolve));
      await killer.client('KILL', 'ID', String(id));
      await closed;
      expect(isServiceUnavailable(await failure(() => victim.ping()))).toBe(true);
    } finally {
      victim.disconnect();
      killer.disconnect();
    }
  });

  it("envdata's own one-line errors for a service that does not answer", () => {
    expect(isServiceUnavailable(redisUnavailable(DOWN_REDIS, new Error('x')))).toBe(true);
    expect(
      isServiceUnavailable(new EnvdataError('DATABASE_UNAVAILABLE', 'x', { retryable: true })),
    ).toBe(true);
  });
});

describe('isServiceUnavailable: errors that are not an outage', () => {
  it('a bad statement or a constraint Postgres enforces', async () => {
    const client = new pg.Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      expect(isServiceUnavailable(await failure(() => client.query('selec 1')))).toBe(false);
      await client.query('create temporary table t (id int primary key)');
      await client.query('insert into t values (1)');
      expect(
        isServiceUnavailable(await failure(() => client.query('insert into t values (1)'))),
      ).toBe(false);
    } finally {
      await client.end();
    }
  });

  it('a failed call to the service, even when its cause is a reset socket', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const network = new ServiceError('NETWORK', 'could not talk to the service', {
      endpoint: '/weather/history/by-lat-lng',
      retryable: true,
      cause: reset,
    });
    expect(isServiceUnavailable(network)).toBe(false);
    expect(isServiceUnavailable(new Error('something else'))).toBe(false);
    expect(isServiceUnavailable(new EnvdataError('CONFIG_INVALID', 'x'))).toBe(false);
    expect(isServiceUnavailable('ECONNREFUSED')).toBe(false);
  });
});

/** Terminates backend `pid` once it is running its query. */
async function pollTerminated(killer: pg.Client, pid: number): Promise<void> {
  for (;;) {
    const { rows } = await killer.query<{ ok: boolean }>(
      `select pg_terminate_backend(pid) as ok from pg_stat_activity
       where pid = $1 and state = 'active'`,
      [pid],
    );
    if (rows[0]?.ok) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
