import type { QueueFactory } from '../queue/queue-factory.js';
import { PostgresQuotaCounter } from './postgres-quota-counter.js';
import { PostgresWindowCounters } from './postgres-window-counters.js';
import type { QuotaCounter } from './quota-counter.js';
import { RedisWindowCounters } from './redis-window-counters.js';
import type { WindowCounters } from './window-counters.js';

/** Where admission keeps its counts, shared by every worker of an installation. */
export interface AdmissionStores {
  /**
   * The rate-limit rules' counters, beside the queue: Redis keys, or `envdata.call_budget` and
   * `envdata.call_pace` on the Postgres backend.
   */
  readonly windows: WindowCounters;
  /**
   * The calendar quotas' and the budget's counters: rows of `envdata.quota_usage` in the
   * warehouse on either backend. They count money: Redis, even the queue's, may lose its keys
   * (a restart without persistence, a flush), the warehouse does not, so what was spent is
   * never counted again. Throws on use when `queues` has no warehouse.
   */
  readonly quota: QuotaCounter;
}

/** The counters on `queues`' backend (Redis, or Postgres) and in the warehouse. */
export function admissionStores(queues: QueueFactory): AdmissionStores {
  const db = queues.warehouse;
  const warehouse = () => {
    if (!db) throw new Error('the admission counters need the warehouse (QueueFactory db)');
    return db();
  };
  let windows: WindowCounters | undefined;
  return {
    // Made on first use: reading the quota alone (`status`) opens no Redis connection.
    get windows() {
      return (windows ??=
        queues.backend === 'redis'
          ? new RedisWindowCounters(queues.connection(), queues.keyspace)
          : new PostgresWindowCounters(warehouse));
    },
    quota: new PostgresQuotaCounter(warehouse),
  };
}
