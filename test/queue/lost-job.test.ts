import { ErrorCode, Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isLostJob } from '../../src/queue/lost-job.js';
import { withoutRedis } from '../harness/test-environment.js';

// Redis only: a job's key vanishes when a Redis without persistence restarts or is flushed; the
// Postgres backend keeps its jobs in tables.
describe.skipIf(withoutRedis())('isLostJob [redis]', () => {
  let connection: Redis;
  let queue: Queue;
  const prefix = `lost-${process.pid}`;
  beforeAll(() => {
    connection = new Redis(inject('services').redisUrl, { maxRetriesPerRequest: null });
    queue = new Queue('lost-job-test', { connection, prefix });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    connection.disconnect();
  });

  it('recognises BullMQ finishing a job whose key Redis no longer has', async () => {
    const added = await queue.add('x', { n: 1 });
    const job = (await Job.fromId(queue, added.id!))!;
    // What a restart of Redis without persistence, or a flush, leaves: no key for the job.
    await connection.del(`${prefix}:lost-job-test:${added.id}`);

    const error = await job.moveToCompleted('done', 'a-token', false).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect(isLostJob(error)).toBe(true);
  });

  it('recognises BullMQ finishing a job that another worker holds now', async () => {
    await queue.add('y', { n: 2 }, { jobId: 'held' });
    // Another worker took the job (after Redis came back empty, the feeder dispatched it again).
    const held = (await queue.getJob('held'))!;
    await connection.set(`${prefix}:lost-job-test:held:lock`, 'another-token');
    await connection.lrem(`${prefix}:lost-job-test:wait`, 0, 'held');
    await connection.lpush(`${prefix}:lost-job-test:active`, 'held');

    const error = await held.moveToCompleted('done', 'my-token', false).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: unknown }).code).toBe(ErrorCode.JobLockMismatch);
    expect(isLostJob(error)).toBe(true);
  });
});

describe('isLostJob', () => {
  it('leaves every other error alone', () => {
    expect(isLostJob(new Error('Connection is closed.'))).toBe(false);
    expect(isLostJob(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isLostJob(undefined)).toBe(false);
  });
});
