/**
 * Every Redis key of one installation, derived from ENVDATA_QUEUE_PREFIX here and nowhere else:
 * BullMQ's keys (`<bullmqPrefix>:<queue>:…`, BullMQ names them from `bullmqPrefix`) and
 * envdata's own (`<bullmqPrefix>:envdata:…`, named by `key()`).
 *
 * On a Redis Cluster the prefix is the hash tag `{prefix}`: Redis then hashes only `prefix`,
 * so every key of the installation is in one slot. BullMQ needs that (its scripts touch several
 * keys of a queue at once: CROSSSLOT otherwise), and so does envdata's call budget (MULTI over
 * its counter), its pacer's slots and its workers' heartbeats. The price: one node of the cluster holds and serves all of it.
 * `test/queue/redis-keyspace.test.ts` computes the slot of every key built here.
 */
export class RedisKeyspace {
  /** The `prefix` option of every BullMQ queue, worker and listener. */
  readonly bullmqPrefix: string;

  /**
   * @param prefix ENVDATA_QUEUE_PREFIX (letters, digits, `_`, `.`, `-`: no brace of its own).
   * @param cluster Whether the keys live on a Redis Cluster (REDIS_CLUSTER_NODES).
   */
  constructor(prefix: string, cluster: boolean) {
    this.bullmqPrefix = cluster ? `{${prefix}}` : prefix;
  }

  /** `<bullmqPrefix>:envdata:<parts…>`: the one way envdata names a key of its own. */
  key(...parts: readonly (string | number)[]): string {
    return [this.bullmqPrefix, 'envdata', ...parts].join(':');
  }

  /** The call budget's counter of one fixed window (`CallBudget`, `RedisWindowCounters.increment`). */
  budgetCounter(durationMs: number, windowIndex: number): string {
    return this.key('budget', durationMs, windowIndex);
  }

  /** The latest call slots of a paced rule (`CallPacer`, `RedisWindowCounters.reserve`). */
  paceSlots(rule: string): string {
    return this.key('pace', rule);
  }

  /** The names of the workers of `queue` that beat (`RedisWorkerHeartbeats`). */
  workerHeartbeats(queue: string): string {
    return this.key('workers', queue);
  }

  /** One worker's last beat, with the beat's expiry as TTL (`RedisWorkerHeartbeats`). */
  workerHeartbeat(queue: string, workerId: string): string {
    return this.key('worker', queue, workerId);
  }
}
