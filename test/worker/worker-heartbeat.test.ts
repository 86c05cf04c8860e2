import { afterAll, describe, expect, it } from 'vitest';
import type { ConnectedWorker } from '../../src/queue/list-workers.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { HEARTBEAT_MISSES } from '../../src/queue/worker-heartbeat.js';
import { workerName } from '../../src/queue/worker-identity.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';

const HEARTBEAT_MS = 200;
const fx = useBackfillFixture({}, { ENVDATA_WORKER_HEARTBEAT: `${HEARTBEAT_MS}ms` });
const children: RunningEnvdata[] = [];

afterAll(async () => {
  for (const c of children) {
    if (c.child.exitCode === null && c.child.signalCode === null) {
      c.child.kill('SIGKILL');
      await c.exited;
    }
  }
});

/** The workers of the ingest queue, read until `until` holds (on state, with a deadline). */
function workersUntil(
  until: (workers: ConnectedWorker[]) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<ConnectedWorker[]> {
  return pollUntil<ConnectedWorker[], ConnectedWorker[]>(
    async () => {
      const workers = await fx.app.queues.listWorkers(QUEUE_NAMES.ingest);
      return until(workers) ? { done: workers } : { last: workers };
    },
    { timeoutMs, describe: (last) => `${what}; the workers listed: ${JSON.stringify(last)}` },
  );
}

describe('worker heartbeats', () => {
  it('a worker busy with long jobs keeps reporting itself alive, with the jobs in hand', async () => {
    const queues = fx.newApp().queues;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = queues.worker(QUEUE_NAMES.ingest, () => released, {
      concurrency: 3,
      name: workerName(3),
    });
    try {
      const queue = queues.queue(QUEUE_NAMES.ingest);
      await queue.addBulk([1, 2, 3].map((n) => ({ name: 'long', data: { n } })));
      const [busy] = await workersUntil(
        (ws) => ws.length === 1 && ws[0]!.busy === 3,
        'the worker never reported 3 jobs in hand',
      );
      expect(busy).toMatchObject({
        pid: process.pid,
        concurrency: 3,
        alive: true,
        connected: true,
      });
      const busySince = busy!.lastHeartbeatAt!.getTime();
      // Every slot busy: the worker asks its queue for nothing, yet beats on.
      const [later] = await workersUntil(
        (ws) => (ws[0]?.lastHeartbeatAt?.getTime() ?? 0) >= busySince + 3 * HEARTBEAT_MS,
        'the busy worker stopped beating',
      );
      expect(later).toMatchObject({ alive: true, busy: 3, connected: true });
      expect(Date.now() - later!.lastHeartbeatAt!.getTime()).toBeLessThan(
        HEARTBEAT_MS * HEARTBEAT_MISSES + 1_000,
      );
      release();
      await workersUntil(
        (ws) => ws[0]?.busy === 0 && ws[0].alive,
        'the worker never reported itself idle',
      );
    } finally {
      release();
      await worker.close();
    }
    // A worker that closed is gone at once, not after its beat expired.
    await workersUntil((ws) => ws.length === 0, 'a closed worker is still listed', 2_000);
  });

  it('a worker process killed with SIGKILL is listed until its heartbeat expires, then gone', async () => {
    const heartbeatMs = 1_000;
    const running = startEnvdata(
      ['worker', '--concurrency', '2'],
      fx.cliEnv({ ENVDATA_WORKER_HEARTBEAT: `${heartbeatMs}ms` }),
    );
    children.push(running);
    const pid = running.child.pid!;
    const ofChild = (ws: ConnectedWorker[]) => ws.find((w) => w.pid === pid);
    await workersUntil(
      (ws) => ofChild(ws)?.alive === true && ofChild(ws)?.connected === true,
      `the worker process ${pid} never showed up alive`,
    );
    running.child.kill('SIGKILL');
    expect((await running.exited).signal).toBe('SIGKILL');
    const killedAt = Date.now();
    // Its connection closed with the process; its last beat keeps it listed (alive) a while.
    const afterKill = ofChild(await fx.app.queues.listWorkers(QUEUE_NAMES.ingest));
    expect(afterKill).toMatchObject({ alive: true, busy: 0 });
    await workersUntil(
      (ws) => ofChild(ws) === undefined,
      `the killed worker ${pid} was still listed ${heartbeatMs * HEARTBEAT_MISSES} ms after its last beat`,
      heartbeatMs * HEARTBEAT_MISSES + 5_000,
    );
    const goneAfterMs = Date.now() - killedAt;
    // Gone within the expiry of its last beat (plus the reading), not before a beat was missed.
    expect(goneAfterMs).toBeLessThan(heartbeatMs * HEARTBEAT_MISSES + 2_000);
    expect(goneAfterMs).toBeGreaterThan(heartbeatMs * (HEARTBEAT_MISSES - 1) - 500);
  });
});
