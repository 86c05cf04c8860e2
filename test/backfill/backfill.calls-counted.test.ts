import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { SPENT_SINCE_NOTE } from '../../src/cli/spent-since-note.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { captureLogger } from '../harness/capture-logger.js';
import { waitForQueueEmpty } from '../harness/poll-until.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';

const WRONG_KEY = 'not-the-key-0904';
const fx = useBackfillFixture();

describe("a run's calls, counted one way everywhere", () => {
  it('calls answered 401 count in the run as in the quota; the refusal is logged once per run, not once per slot', async () => {
    fx.simulator.resetStats();
    const log = captureLogger([WRONG_KEY]);
    const env = {
      ENVDATA_BASE_URL: fx.simulator.url,
      ENVDATA_API_KEY: WRONG_KEY,
      ENVDATA_RATE_LIMIT: 'off',
      ENVDATA_RETRY_BASE_MS: '20',
      ENVDATA_QUOTA: '1000/day',
      ENVDATA_SYNC_RESERVE: '0',
      ENVDATA_PRICE_PER_CALL: '0.01 EUR',
    };
    const bad = createApp(fx.env.config(env), { logger: log.logger });
    try {
      // 2 datasets × 2 locations × 4 windows: 16 chunks for 8 slots.
      const start = await startBackfill(bad, {
        ...backfillRange('2024-06-02', '2024-06-10'),
        locations: fx.locations,
      });
      const runId = start.runId!;
      const worker = IngestWorker.start(bad, { concurrency: 8 });
      try {
        expect(await waitForRun(bad.db, runId)).toMatchObject({ status: 'stopped' });
        await waitForQueueEmpty(bad);
      } finally {
        await worker.close();
      }
      const sent = fx.simulator.stats().total;
      expect(sent).toBeGreaterThan(0);
      expect(fx.simulator.stats().byStatus).toEqual({ '401': sent });
      // Every call sent counts in the run, whatever its answer: as many as the quota counted.
      expect((await runProgress(bad.db, runId))!.calls).toBe(sent);
      const status = await runCliInProcess(['status', String(runId)], fx.cliEnv(env));
      expect(status.stdout).toContain(`, ${sent} calls`);
      expect(status.stdout).toMatch(new RegExp(`day +${sent} of 1000 calls`));
      // What "spent" counts is said beside it: calls made before a quota or budget are not in it.
      expect(status.stdout).toContain(`(${SPENT_SINCE_NOTE})`);
      // One line for the refused key, whatever the number of slots that met it.
      const refusals = log.lines.filter((l) => l.includes('the run stops until the key is fixed'));
      expect(refusals).toHaveLength(1);
    } finally {
      await bad.close();
    }
  });
});
