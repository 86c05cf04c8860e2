import { afterEach, describe, expect, it } from 'vitest';
import { QueueFactory } from '../../src/queue/queue-factory.js';
import { QUEUE_NAMES } from '../../src/queue/queue-names.js';
import { assertRedisAnswers } from '../../src/queue/create-redis.js';
import { openResources } from '../../src/lifecycle/open-resources.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
let factory: QueueFactory | undefined;

afterEach(async () => {
  await factory?.close();
  factory = undefined;
});

describe('QueueFactory', () => {
  it('runs a job through a worker under the configured prefix', async () => {
    factory = new QueueFactory({ redisUrl: env.redisUrl, prefix: env.queuePrefix });
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
    const keys = await factory.connection().keys(`${env.queuePrefix}:${QUEUE_NAMES.ingest}:*`);
    expect(keys.length).toBeGreaterThan(0);
  });

  it('gives workers blocking connections that wait out Redis restarts', () => {
    factory = new QueueFactory({ redisUrl: env.redisUrl, prefix: env.queuePrefix });
    const worker = factory.worker(QUEUE_NAMES.ingest, async () => undefined, { autorun: false });
    expect(worker.opts.connection).toMatchObject({ options: { maxRetriesPerRequest: null } });
  });

  it('closes every connection it opened', async () => {
    const before = openResources().length;
    const local = new QueueFactory({ redisUrl: env.redisUrl, prefix: env.queuePrefix });
    local.queue(QUEUE_NAMES.sync);
    local.worker(QUEUE_NAMES.sync, async () => undefined, { autorun: false });
    local.events(QUEUE_NAMES.sync);
    expect(openResources().length).toBeGreaterThan(before);
    await local.close();
    expect(openResources().length).toBe(before);
  });

  it('says how to start Redis when it does not answer', async () => {
    const error = await assertRedisAnswers('redis://:pw@127.0.0.1:1', 1000).catch(
      (e: unknown) => e,
    );
    expect(isEnvdataError(error) && error.code).toBe('REDIS_UNAVAILABLE');
    expect((error as Error).message).toMatch(/redis:\/\/:\*\*\*@127\.0\.0\.1:1.*start Redis/);
  });
});
