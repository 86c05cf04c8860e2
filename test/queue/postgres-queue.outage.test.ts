import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { SQLSTATE, errorCode } from '../../src/errors/pg-errors.js';
import { QueueFactory } from '../../src/queue/queue-factory.js';
import { pollUntil } from '../harness/poll-until.js';
import { startPrivatePostgres, type PrivatePostgres } from '../harness/private-services.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';

// A worker on the Postgres queue backend that starts while Postgres refuses every new connection
// (max_connections reached, "sorry, too many clients already"): BullMQ keeps that first failure
// and, unpaced, its main loop turned in microtasks for good (a core at 100 %, SIGTERM never
// handled). It must idle, finish the work once connections free up, and stop on SIGTERM.
const WORKER = fileURLToPath(new URL('./postgres-queue-worker-process.ts', import.meta.url));
const JOBS = 20;
/** The window the worker's CPU time is measured over, and the most of it the worker may use. */
const WINDOW_MS = 2_000;
const MAX_CPU_MS = 400;

let server: PrivatePostgres;
const held: pg.Client[] = [];
let worker: RunningEnvdata | undefined;

beforeAll(async () => {
  server = await startPrivatePostgres({ maxConnections: 12 });
}, 120_000);

afterEach(async () => {
  if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
  await worker?.exited;
  worker = undefined;
  await releaseConnections();
});

afterAll(async () => {
  await server?.remove();
});

function queueFactory(): QueueFactory {
  return new QueueFactory({
    backend: 'postgres',
    redisUrl: 'redis://127.0.0.1:1',
    databaseUrl: server.url(),
    prefix: 'unused',
    db: () => {
      throw new Error('not used here');
    },
  });
}

/** Opens connections until Postgres refuses one for max_connections, and holds them. */
async function takeEveryConnection(): Promise<void> {
  await untilNoOtherClients();
  for (let i = 0; i < 100; i += 1) {
    const client = new pg.Client({ connectionString: server.url() });
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      if (errorCode(error) === SQLSTATE.tooManyConnections) return;
      throw error;
    }
    held.push(client);
  }
  throw new Error('Postgres still took connections after 100');
}

/**
 * Waits until the server has no client but the one asking: the backends of a killed worker
 * outlive it for a moment, and would free their slots under the next test's feet.
 */
async function untilNoOtherClients(): Promise<void> {
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  try {
    await pollUntil(
      async () => {
        const { rows } = await client.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()",
        );
        return rows[0]!.n === 0 ? { done: true } : { last: rows[0]!.n };
      },
      { timeoutMs: 10_000, describe: (n) => `${String(n)} other clients still connected` },
    );
  } finally {
    await client.end();
  }
}

async function releaseConnections(): Promise<void> {
  await Promise.all(held.splice(0).map((c) => c.end().catch(() => undefined)));
}

/** A worker process started now, once it has met Postgres's refusal. */
async function startWorker(): Promise<RunningEnvdata> {
  worker = startEnvdata(
    [],
    { DATABASE_URL: server.url() },
    {
      command: [process.execPath, '--import', 'tsx', WORKER],
    },
  );
  await worker.waitFor(new RegExp(`^error ${SQLSTATE.tooManyConnections}$`, 'm'), {
    timeoutMs: 20_000,
  });
  return worker;
}

/** User plus system CPU time of a process so far, in ms (Linux: clock ticks of 10 ms). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // After the command name in parentheses: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

describe('a worker on the Postgres queue while Postgres refuses connections', () => {
  it('idles, and finishes the queued jobs once connections free up', async () => {
    const factory = queueFactory();
    const queue = factory.queue(QUEUE_NAMES.ingest);
    await queue.addBulk(Array.from({ length: JOBS }, (_, i) => ({ name: 'job', data: { i } })));
    await factory.close();

    await takeEveryConnection();
    const { child } = await startWorker();
    const before = await cpuMs(child.pid!);
    await sleep(WINDOW_MS);
    const used = (await cpuMs(child.pid!)) - before;
    expect(used, `CPU time over ${WINDOW_MS} ms`).toBeLessThan(MAX_CPU_MS);
    expect(worker!.stdout()).not.toMatch(/^done /m);

    await releaseConnections();
    await worker!.waitFor(new RegExp(`^done ${JOBS}$`, 'm'), { timeoutMs: 30_000 });
  }, 60_000);

  it('stops on SIGTERM', async () => {
    await takeEveryConnection();
    const { child } = await startWorker();
    const signalled = Date.now();
    child.kill('SIGTERM');
    const outcome = await Promise.race([worker!.exited, sleep(5_000, 'still running' as const)]);
    expect(outcome, worker!.stdout()).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(3_000);
    expect(worker!.stdout()).toMatch(/^closed$/m);
  }, 60_000);
});
