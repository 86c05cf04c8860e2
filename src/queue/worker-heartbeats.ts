import type { QueueName } from '../../jobs/queue-names.js';
import type { WorkerIdentity } from './worker-identity.js';

/** What a worker reports at each beat. */
export interface WorkerBeat extends WorkerIdentity {
  /** This worker's own id, unique among every worker of the installation (`workerName` + a random tail). */
  readonly id: string;
  /** Jobs it is working on now. */
  readonly busy: number;
  /** When it started (its own clock). */
  readonly startedAt: Date;
  /** How long this beat keeps it listed: a worker silent that long is presumed gone. */
  readonly expiresInMs: number;
}

/** A worker's last beat, as a reader finds it while the beat has not expired. */
export interface HeartbeatReading extends WorkerIdentity {
  readonly id: string;
  readonly busy: number;
  /** Seconds since that beat, by the clock of the backend that keeps it. */
  readonly beatAgeSeconds: number;
  /** Seconds since the worker started. */
  readonly ageSeconds: number;
}

/**
 * The heartbeats of the workers of an installation, on whichever backend holds the queue
 * (`RedisWorkerHeartbeats`: keys with a TTL; `PostgresWorkerHeartbeats`:
 * `envdata.worker_heartbeat`). A beat expires by itself: a worker killed with SIGKILL, or whose
 * host went away, is no longer listed once its last beat expired.
 */
export interface WorkerHeartbeats {
  /** Records (or renews) one worker's beat on `queue`. */
  beat(queue: QueueName, beat: WorkerBeat): Promise<void>;
  /** Forgets a worker at once (it closed). */
  remove(queue: QueueName, id: string): Promise<void>;
  /** The workers of `queue` whose last beat has not expired. */
  list(queue: QueueName): Promise<HeartbeatReading[]>;
}
