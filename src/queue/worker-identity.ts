import { hostname } from 'node:os';

/** Who a connected worker is: the host, process and concurrency it announced. */
export interface WorkerIdentity {
  readonly host: string;
  readonly pid: number;
  readonly concurrency: number;
}

/**
 * The name a worker announces itself with (BullMQ sets it as the Redis client name, so
 * `Queue.getWorkers()` lists it): `host:pid:concurrency`, with the host made safe for a client
 * name (no spaces, no colons).
 */
export function workerName(concurrency: number, host = hostname(), pid = process.pid): string {
  return `${host.replace(/[^A-Za-z0-9._-]/g, '_')}:${pid}:${concurrency}`;
}

/** The identity in a client name BullMQ reports (`…:w:host:pid:concurrency`), if it is ours. */
export function parseWorkerName(clientName: string): WorkerIdentity | undefined {
  const m = /:w:([^:]+):(\d+):(\d+)$/.exec(clientName);
  if (!m) return undefined;
  return { host: m[1]!, pid: Number(m[2]), concurrency: Number(m[3]) };
}
