import { randomBytes } from 'node:crypto';
import type { QueueName } from '../../jobs/queue-names.js';
import type { WorkerHeartbeats } from './worker-heartbeats.js';
import type { WorkerIdentity } from './worker-identity.js';

/** Beats a worker may miss before it is presumed gone: its beat expires after this many intervals. */
export const HEARTBEAT_MISSES = 3;

export interface WorkerHeartbeatOptions {
  readonly heartbeats: WorkerHeartbeats;
  readonly queue: QueueName;
  readonly identity: WorkerIdentity;
  /** Jobs the worker is working on now. */
  readonly busy: () => number;
  /** How often it beats (ENVDATA_WORKER_HEARTBEAT); the beat expires after `HEARTBEAT_MISSES` of these. */
  readonly intervalMs: number;
}

/**
 * One worker telling the installation it is alive: a beat at once, then every `intervalMs` while
 * the process runs, whether the worker waits for jobs or works on all it can take, with the
 * number of jobs in hand. Its connection to the queue cannot say as much: a worker busy with
 * every slot sends Redis nothing, and a connection of a host that went away stays open for
 * minutes. `stop()` removes the beat, so a worker that closed is not listed; one that was killed
 * is no longer listed once its last beat expired.
 *
 * A beat that fails (the backend is down) is not reported here: the worker's own connections
 * report the outage, and the next beat tries again.
 */
export class WorkerHeartbeat {
  /** This worker's id: its announced name plus a random tail (several workers may share a process). */
  readonly id: string;
  private readonly startedAt = new Date();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: WorkerHeartbeatOptions) {
    const { host, pid, concurrency } = options.identity;
    this.id = `${host}:${pid}:${concurrency}:${randomBytes(4).toString('hex')}`;
  }

  /** Beats now and every interval until `stop()`. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.beat();
    this.timer = setInterval(() => this.beat(), this.options.intervalMs);
    // Beating never keeps a process alive on its own.
    this.timer.unref();
  }

  /** Stops beating and removes the beat (bounded by the caller: the backend may be down). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    await this.beating;
    await this.options.heartbeats.remove(this.options.queue, this.id).catch(() => undefined);
  }

  private beat(): void {
    // One beat at a time: a backend slower than the interval skips beats rather than piling them up.
    if (this.stopped || this.beating) return;
    const { heartbeats, queue, identity, busy, intervalMs } = this.options;
    this.beating = heartbeats
      .beat(queue, {
        id: this.id,
        ...identity,
        busy: busy(),
        startedAt: this.startedAt,
        expiresInMs: intervalMs * HEARTBEAT_MISSES,
      })
      .catch(() => undefined)
      .finally(() => (this.beating = undefined));
  }
}
