import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';

const fx = useBackfillFixture();

describe('envdata status and the workers', () => {
  it('lists the workers alive: host, pid, concurrency, jobs in hand, last heartbeat', async () => {
    const worker = IngestWorker.start(fx.app, { concurrency: 3 });
    try {
      await worker.worker.waitUntilReady();
      const status = await runCliInProcess(['status'], fx.cliEnv());
      expect(status.stdout).toMatch(/workers alive: 1 \(busy with 0 of 3 job slots\)\n/);
      expect(status.stdout).toMatch(
        new RegExp(
          `${hostname().replace(/[^A-Za-z0-9._-]/g, '_')} pid ${process.pid}, concurrency 3, busy 0, heartbeat (under a second|\\d+ s) ago, connected`,
        ),
      );
      const json = JSON.parse(
        (await runCliInProcess(['status', '--json'], fx.cliEnv())).stdout,
      ) as { queue: { workers: { pid: number; concurrency: number }[] } };
      expect(json.queue.workers).toEqual([
        expect.objectContaining({
          pid: process.pid,
          concurrency: 3,
          alive: true,
          busy: 0,
          connected: true,
          lastHeartbeatAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        }),
      ]);
    } finally {
      await worker.close();
    }
  });

  it('warns when runs wait for work and no worker is alive', async () => {
    const start = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-06', { datasets: ['weather'] }),
      locations: fx.locations,
    });
    const status = await runCliInProcess(['status'], fx.cliEnv());
    expect(status.stdout).toMatch(/workers alive: 0\n/);
    expect(status.stderr).toContain(
      `run(s) ${start.runId} wait for work, but no worker is alive: start \`envdata worker\``,
    );
  });
});
