import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionStores } from '../../src/admission/admission-stores.js';
import { QUEUE_BACKENDS } from '../../src/config/config.js';
import { QueueFactory } from '../../src/queue/queue-factory.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { assertRedisAnswers } from '../../src/queue/create-redis.js';
import { workerName } from '../../src/queue/worker-identity.js';
import { openResources } from '../../src/lifecycle/open-resources.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { createDatabase } from '../../src/warehouse/create-database.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { useTestEnvironment, withoutRedis } from '../harness/test-environment.js';

const env = useTestEnvironment();
let factory: QueueFactory | undefined;
const db = () => {
  warehouse ??= createDatabase({
    url: env.databaseUrl,
    poolMax: 2,
    logger: createLogger({ level: 'silent', format: 'json' }),
  });
  return warehouse;
};
let warehouse: ReturnType<typeof createDatabase> | undefined;

afterEach(async () => {
  await factory?.close();
  factory = undefined;
  await warehouse?.destroy();
  warehouse = undefined;
});

describe.each(QUEUE_BACKENDS.filter((b) => b !== 'redis' || !withoutRedis()))(
  'QueueFactory [%s]',
  (backend) => {
    const create = () =>
      new QueueFactory({
        backend,
        redisUrl: env.redisUrl,
        databaseUrl: env.databaseUrl,
        prefix: env.queuePrefix,
        db,
      });

    it('runs a job through a worker', async () => {
      factory = create();
      const queue = factory.queue<{ n: number }>(QUEUE_NAMES.ingest);
      const done = new Promise<number>((resolve) => {
        const worker = factory!.worker<{ n: number }, number>(
          QUEUE_NAMES.ingest,
          async (job) => job.data.n * 2,
        );
        worker.on('completed', (_job, result) => resolve(result));
      });
      await queue.add('double', { n: 21 }, { jobId: 'double-21' });
      expect(await done).toBe(42);
      expect(await queue.getJobCounts('completed')).toEqual({ completed: 1 });
    });

    it('lists the workers connected, by the name they announced', async () => {
      factory = create();
      const worker = factory.worker(QUEUE_NAMES.sync, async () => undefined, {
        name: workerName(3),
        autorun: false,
      });
      await worker.waitUntilReady();
      const workers = await factory.listWorkers(QUEUE_NAMES.sync);
      expect(workers.map((w) => [w.pid, w.concurrency])).toEqual([[process.pid, 3]]);
    });

    it('shares call counters between factories of one installation', async () => {
      factory = create();
      const other = create();
      try {
        const window = Math.floor(Date.now() / 60_000);
        expect(await admissionStores(factory).windows.increment(60_000, window)).toBe(1);
        expect(await admissionStores(other).windows.increment(60_000, window)).toBe(2);
        expect(await admissionStores(factory).windows.increment(60_000, window + 1)).toBe(1);
      } finally {
        await other.close();
      }
    });

    it('closes every connection it opened', async () => {
      const before = openResources().length;
      const local = create();
      local.queue(QUEUE_NAMES.sync);
      local.worker(QUEUE_NAMES.sync, async () => undefined, { autorun: false });
      local.events(QUEUE_NAMES.sync);
      expect(openResources().length).toBeGreaterThan(before);
      await local.close();
      expect(openResources().length).toBe(before);
      if (backend === 'postgres') {
        // Nothing BullMQ opened while starting up outlives the close (its LISTEN connections).
        const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and application_name like ${`${QUEUE_NAMES.sync}%`}`.execute(
          db(),
        );
        expect(rows[0]!.n).toBe(0);
      }
    });
  },
);

describe.skipIf(withoutRedis())('QueueFactory on Redis [redis]', () => {
  it('puts every key under the configured prefix', async () => {
    factory = new QueueFactory({ redisUrl: env.redisUrl, prefix: env.queuePrefix });
    await factory.queue(QUEUE_NAMES.ingest).add('x', {}, { jobId: 'x' });
    const keys = await factory.connection().keys(`${env.queuePrefix}:${QUEUE_NAMES.ingest}:*`);
    expect(keys.length).toBeGreaterThan(0);
  });

  it('gives workers blocking connections that wait out Redis restarts', () => {
    factory = new QueueFactory({ redisUrl: env.redisUrl, prefix: env.queuePrefix });
    const worker = factory.worker(QUEUE_NAMES.ingest, async () => undefined, { autorun: false });
    expect(worker.opts.connection).toMatchObject({ options: { maxRetriesPerRequest: null } });
  });

  it('says how to start Redis when it does not answer', async () => {
    const error = await assertRedisAnswers('redis://:pw@127.0.0.1:1', 1000).catch(
      (e: unknown) => e,
    );
    expect(isEnvdataError(error) && error.code).toBe('REDIS_UNAVAILABLE');
    expect((error as Error).message).toMatch(/redis:\/\/:\*\*\*@127\.0\.0\.1:1.*start Redis/);
  });
});

describe('QueueFactory on Postgres [postgres]', () => {
  it('keeps the queue in schema envdata_queue of the database, with no Redis', async () => {
    factory = new QueueFactory({
      backend: 'postgres',
      redisUrl: 'redis://127.0.0.1:1',
      databaseUrl: env.databaseUrl,
      prefix: env.queuePrefix,
      db,
    });
    await factory.queue(QUEUE_NAMES.ingest).add('x', {}, { jobId: 'x' });
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from envdata_queue.job where queue = 'ingest' and id = 'x'`.execute(
      db(),
    );
    expect(rows[0]!.n).toBe(1);
    expect(() => factory!.connection()).toThrow(/on Postgres/);
  });
});
