import type { Redis } from 'ioredis';
import type { QueueName } from './queue-names.js';
import { parseWorkerName, type WorkerIdentity } from './worker-identity.js';

/** A worker connected to a queue, as Redis sees its connection. */
export interface ConnectedWorker extends WorkerIdentity {
  /** Seconds since the connection's last command (a worker waiting for jobs stays near 0). */
  readonly idleSeconds: number;
  /** Seconds since the worker connected. */
  readonly ageSeconds: number;
}

/**
 * The workers of `queue` connected to Redis now: BullMQ names each worker's connection
 * `<prefix>:<base64 queue>:w:<name>` and ours announce `host:pid:concurrency` (`workerName`).
 * Read from `CLIENT LIST` directly: BullMQ's `getWorkers()` reports the queue name instead.
 */
export async function listWorkers(
  redis: Redis,
  prefix: string,
  queue: QueueName,
): Promise<ConnectedWorker[]> {
  const ownName = `${prefix}:${Buffer.from(queue).toString('base64')}:w:`;
  const list = String(await redis.client('LIST'));
  const workers: ConnectedWorker[] = [];
  for (const line of list.split(/\r?\n/)) {
    const fields = new Map(
      line.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    const name = fields.get('name') ?? '';
    if (!name.startsWith(ownName)) continue;
    const identity = parseWorkerName(name);
    if (!identity) continue;
    workers.push({
      ...identity,
      idleSeconds: Number(fields.get('idle') ?? 0),
      ageSeconds: Number(fields.get('age') ?? 0),
    });
  }
  return workers;
}
