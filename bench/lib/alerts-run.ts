import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { recordNotification } from '../../src/ledger/record-notification.js';
import type { Database } from '../../src/warehouse/schema.js';
import type { Location } from '../../src/locations/location.js';
import { benchApp, timedBackfill, type BenchTarget } from './bench-app.js';

/** One measurement of `bench:alerts`: a few backfills in a row, with alerts or without. */
export interface AlertsRun {
  readonly alerts: boolean;
  readonly chunks: number;
  readonly rows: number;
  readonly seconds: number;
  /** CPU time of this process (the worker; the simulator runs in its own) during the runs. */
  readonly cpuSeconds: number;
  /** `done` when every backfill ended done, else the first other status. */
  readonly status: string;
  /** Events the runs wrote into the outbox (`envdata.notification`). */
  readonly written: number;
  /** Events the receiver got while the clock ran, and in all (after waiting for the rest). */
  readonly deliveredTimed: number;
  readonly delivered: number;
}

/** A webhook receiver on loopback that answers 200 to every POST and counts them. */
export interface CountingReceiver {
  readonly url: string;
  /** POSTs received so far. */
  count(): number;
  /** Resolves once `count()` reaches `n`, or rejects after `timeoutMs`. */
  reach(n: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Ports of this bench's receiver (127.0.0.1). */
const PORTS = { first: 46_600, last: 46_699 } as const;

/** Starts a `CountingReceiver` on the first free port of 46600-46699. */
export async function startCountingReceiver(): Promise<CountingReceiver> {
  let received = 0;
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      for (const w of [...waiters]) w();
      res.writeHead(200).end();
    });
  });
  const port = await listenInRange(server);
  return {
    url: `http://127.0.0.1:${port}/hook/bench`,
    count: () => received,
    reach(n, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (received < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${received} of ${n} events in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function listenInRange(server: Server): Promise<number> {
  for (let port = PORTS.first; port <= PORTS.last; port++) {
    try {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      return port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw new Error(`no free port in ${PORTS.first}-${PORTS.last} for the alert receiver`);
}

const HOUR_MS = 3_600_000;

/**
 * `backfills` backfills of pollen and weather in a row over `[to - days, to)` at `locations`,
 * each a slice of its own, with one worker of `concurrency` slots against the simulator at
 * `baseUrl` (whose faults quarantine hours; with no re-fetch, each backfill ends with quarantined
 * hours and writes a `run-ended` event). With alerts, as `envdata worker` runs with
 * ENVDATA_NOTIFY_URL set: the notification dispatcher started, posting to `receiver`, so the
 * events of the first backfills are delivered while the later ones run; without, no URL and no dispatcher. The clock counts the backfills
 * only; the events still undelivered at its end are awaited afterwards. Without, the events
 * written are deleted afterwards, not to be delivered by the next run with alerts.
 */
export async function measureAlertsRun(
  target: BenchTarget,
  locations: readonly Location[],
  options: {
    readonly alerts: boolean;
    readonly baseUrl: string;
    readonly receiver: CountingReceiver;
    readonly to: Date;
    readonly days: number;
    readonly backfills: number;
    readonly concurrency: number;
  },
): Promise<AlertsRun> {
  const app = benchApp(target, {
    ENVDATA_BASE_URL: options.baseUrl,
    ENVDATA_RATE_LIMIT: 'off',
    // A quarantined hour stays so (no re-fetch, no wait for one): every backfill that meets the
    // simulator's faults ends with quarantined hours, and writes its `run-ended` event.
    ENVDATA_REFETCH_ATTEMPTS: '0',
    ...(options.alerts && { ENVDATA_NOTIFY_URL: options.receiver.url }),
  });
  try {
    await app.start({
      worker: { concurrency: options.concurrency },
      ...(options.alerts && { notifications: true }),
    });
    await app.worker!.worker.waitUntilReady();
    const lastEvent = async () =>
      (
        await sql<{ id: number }>`
          select coalesce(max(notification_id), 0)::int as id from envdata.notification`.execute(
          app.db,
        )
      ).rows[0]!.id;
    const firstEvent = await lastEvent();
    const received0 = options.receiver.count();
    let [chunks, rows, seconds, cpuSeconds, status] = [0, 0, 0, 0, 'done'];
    // Slices of whole hours, going back from `to`.
    const bound = (i: number) =>
      new Date(
        options.to.getTime() - Math.round((i * options.days * 24) / options.backfills) * HOUR_MS,
      );
    for (let i = 0; i < options.backfills; i++) {
      const run = await timedBackfill(app, locations, { from: bound(i + 1), to: bound(i) }, () =>
        app.worker!.feed(),
      );
      chunks += run.chunks;
      rows += run.rows;
      seconds += run.seconds;
      cpuSeconds += run.cpuSeconds;
      if (status === 'done') status = run.status;
    }
    const deliveredTimed = options.receiver.count() - received0;
    const { rows: counted } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.notification
      where notification_id > ${firstEvent}`.execute(app.db);
    const written = counted[0]!.n;
    // Not timed: the last events, written as the last run ended, reach the receiver.
    if (options.alerts) await options.receiver.reach(received0 + written, 30_000);
    // Without a dispatcher the events stay undelivered: gone, so that the next run with one
    // delivers its own events only.
    else
      await sql`delete from envdata.notification where notification_id > ${firstEvent}`.execute(
        app.db,
      );
    return {
      alerts: options.alerts,
      chunks,
      rows,
      seconds,
      cpuSeconds,
      status,
      written,
      deliveredTimed,
      delivered: options.receiver.count() - received0,
    };
  } finally {
    await app.stop();
  }
}

/** What one outbox insert costs the transaction it is part of (`measureOutboxInsert`). */
export interface OutboxInsertCost {
  /** Wall time of a transaction with the insert, less one without it (µs, median of blocks). */
  readonly insertMicros: number;
  /** Wall time of the transaction without it (µs), for scale. */
  readonly bareMicros: number;
}

/**
 * The outbox insert on its own, free of the end-to-end runs' noise: `n` transactions shaped as
 * a transition's (a transaction id taken, then commit: the commit flushes the WAL) with
 * `recordNotification` and `n` without, alternating in blocks of 50, on `db` (the bench's
 * database). The events are deleted after.
 */
export async function measureOutboxInsert(
  db: Kysely<Database>,
  n = 1_000,
): Promise<OutboxInsertCost> {
  const first = (
    await sql<{ id: number }>`
      select coalesce(max(notification_id), 0)::int as id from envdata.notification`.execute(db)
  ).rows[0]!.id;
  const BLOCK = 50;
  const perBlock = { with: [] as number[], without: [] as number[] };
  let key = 0;
  try {
    for (let done = 0; done < n; done += BLOCK) {
      for (const withInsert of done % (2 * BLOCK) === 0 ? [false, true] : [true, false]) {
        const t0 = performance.now();
        for (let i = 0; i < BLOCK; i++) {
          await db.transaction().execute(async (trx) => {
            // A transaction id, as a transition's update takes: its commit flushes the WAL.
            await sql`select pg_current_xact_id()`.execute(trx);
            if (withInsert) {
              key += 1;
              await recordNotification(trx, {
                key: `bench:outbox:${process.pid}:${key}`,
                event: 'run-ended',
                details: { runId: key, status: 'done', quarantinedHours: 3 },
              });
            }
          });
        }
        (withInsert ? perBlock.with : perBlock.without).push(
          ((performance.now() - t0) * 1_000) / BLOCK,
        );
      }
    }
  } finally {
    await sql`delete from envdata.notification where notification_id > ${first}`.execute(db);
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  const bare = median(perBlock.without);
  return { insertMicros: median(perBlock.with) - bare, bareMicros: bare };
}
