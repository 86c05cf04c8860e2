import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { isLostJob } from '../../src/queue/lost-job.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue('lost-job-test', { connection, prefix: `lost-${process.pid}` });

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
});

describe('isLostJob', () => {
  it('recognises BullMQ finishing a job whose key Redis no longer has', async () => {
    const added = await queue.add('x', { n: 1 });
    const job = (await Job.fromId(queue, added.id!))!;
    // What a restart of Redis without persistence, or a flush, leaves: no key for the job.
    await connection.del(`lost-${process.pid}:lost-job-test:${added.id}`);

    const error = await job.moveToCompleted('done', 'a-token', false).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(Error);
    expect(isLostJob(error)).toBe(true);
  });

  it('leaves every other error alone', () => {
    expect(isLostJob(new Error('Connection is closed.'))).toBe(false);
    expect(isLostJob(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isLostJob(undefined)).toBe(false);
  });
});
