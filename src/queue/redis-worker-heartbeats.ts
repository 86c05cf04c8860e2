import type { RedisClient } from './create-redis.js';
import type { QueueName } from '../../jobs/queue-names.js';
import type { RedisKeyspace } from './redis-keyspace.js';
import type { HeartbeatReading, WorkerBeat, WorkerHeartbeats } from './worker-heartbeats.js';

/** How long the index of a queue's workers outlives the last beat that touched it. */
const INDEX_KEEP_MS = 86_400_000;

/** A beat as stored in its key. */
interface StoredBeat {
  readonly host: string;
  readonly pid: number;
  readonly concurrency: number;
  readonly busy: number;
  readonly startedAt: number;
  readonly expiresInMs: number;
}

/**
 * Heartbeats as Redis keys (`RedisKeyspace.workerHeartbeat`), one per worker, each set with a
 * TTL of the beat's expiry: Redis forgets a silent worker by itself, by its own clock. A set
 * (`RedisKeyspace.workerHeartbeats`) names the workers of a queue so they can be listed without
 * SCAN (a cluster's SCAN is per node); a name whose key expired is dropped from it when read.
 * On a cluster both are in the installation's one slot: each beat is one MULTI.
 */
export class RedisWorkerHeartbeats implements WorkerHeartbeats {
  constructor(
    private readonly redis: RedisClient,
    private readonly keyspace: RedisKeyspace,
  ) {}

  async beat(queue: QueueName, beat: WorkerBeat): Promise<void> {
    const stored: StoredBeat = {
      host: beat.host,
      pid: beat.pid,
      concurrency: beat.concurrency,
      busy: beat.busy,
      startedAt: beat.startedAt.getTime(),
      expiresInMs: beat.expiresInMs,
    };
    const index = this.keyspace.workerHeartbeats(queue);
    await this.redis
      .multi()
      .set(
        this.keyspace.workerHeartbeat(queue, beat.id),
        JSON.stringify(stored),
        'PX',
        beat.expiresInMs,
      )
      .sadd(index, beat.id)
      .pexpire(index, INDEX_KEEP_MS)
      .exec();
  }

  async remove(queue: QueueName, id: string): Promise<void> {
    await this.redis
      .multi()
      .del(this.keyspace.workerHeartbeat(queue, id))
      .srem(this.keyspace.workerHeartbeats(queue), id)
      .exec();
  }

  async list(queue: QueueName): Promise<HeartbeatReading[]> {
    const index = this.keyspace.workerHeartbeats(queue);
    const ids = (await this.redis.smembers(index)).sort();
    if (ids.length === 0) return [];
    const pipeline = this.redis.multi();
    for (const id of ids) {
      const key = this.keyspace.workerHeartbeat(queue, id);
      pipeline.get(key).pttl(key);
    }
    const replies = ((await pipeline.exec()) ?? []).map(([, value]) => value);
    const readings: HeartbeatReading[] = [];
    const gone: string[] = [];
    const now = Date.now();
    ids.forEach((id, i) => {
      const value = replies[2 * i] as string | null;
      const leftMs = Number(replies[2 * i + 1]);
      if (value === null || leftMs < 0) return void gone.push(id);
      const beat = JSON.parse(value) as StoredBeat;
      readings.push({
        id,
        host: beat.host,
        pid: beat.pid,
        concurrency: beat.concurrency,
        busy: beat.busy,
        beatAgeSeconds: Math.max(0, (beat.expiresInMs - leftMs) / 1000),
        ageSeconds: Math.max(0, (now - beat.startedAt) / 1000),
      });
    });
    // A worker that beats again after this is added back by its beat.
    if (gone.length > 0) await this.redis.srem(index, ...gone);
    return readings;
  }
}
