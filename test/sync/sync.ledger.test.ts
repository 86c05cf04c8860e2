import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { readFreshness } from '../../src/ledger/read-freshness.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { planSyncGaps } from '../../src/sync/plan-sync.js';
import { startSync } from '../../src/sync/start-sync.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { countWindows } from '../../src/windows/tile-windows.js';
import type { App } from '../../src/app.js';
import { CHICAGO } from '../fixtures/places.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForQueueEmpty } from '../harness/poll-until.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture({}, { ENVDATA_MAX_ATTEMPTS: '2', ENVDATA_SYNC_HORIZON: '30d' });
const H = 3_600_000;

async function work(app: App, runId: number) {
  const worker = IngestWorker.start(app, { concurrency: 4 });
  try {
    const progress = await waitForRun(app.db, runId);
    await waitForQueueEmpty(app);
    return progress;
  } finally {
    await worker.close();
  }
}

async function ledgerState() {
  const { rows } = await sql<{ coverage: string }>`
    select string_agg(location_id || ' ' || dataset || ' ' || landed::text, '; '
      order by location_id, dataset) as coverage from envdata.coverage`.execute(fx.app.db);
  return {
    coverage: rows[0]!.coverage,
    freshness: await readFreshness(fx.app.db, 36, new Date('2024-06-06T02:00:00Z')),
  };
}

describe('a sync', () => {
  it('that fails (a refused key, server errors) leaves what landed, freshness and past runs as they were', async () => {
    const t0 = new Date('2024-06-06T00:00:00Z');
    const { runId: backfillId } = await fx.planBackfill({
      ...backfillRange('2024-06-02', t0),
      now: t0,
    });
    expect(await work(fx.app, backfillId!)).toMatchObject({ status: 'done', failed: 0 });
    const before = await ledgerState();
    const pastRun = await runProgress(fx.app.db, backfillId!);

    // A refused key: the sync run stops.
    const refused = fx.newApp({ ENVDATA_API_KEY: 'not-a-key' });
    const stopped = await startSync(refused, new Date('2024-06-06T02:00:00Z'));
    expect(await work(refused, stopped.runId)).toMatchObject({ status: 'stopped' });
    expect(await ledgerState()).toEqual(before);

    // Every history call fails: the sync run fails chunk by chunk.
    fx.simulator.setFaults('history:error=503@100%');
    const failing = await startSync(fx.app, new Date('2024-06-06T02:00:00Z'));
    const failed = await work(fx.app, failing.runId);
    fx.simulator.clearFaults();
    expect(failed.status).toBe('failed');
    expect(failed.failed).toBeGreaterThan(0);
    expect(await ledgerState()).toEqual(before);
    // The backfill's own figures are its own: a later run never rewrites them.
    expect(await runProgress(fx.app.db, backfillId!)).toEqual(pastRun);
  });

  it('after a tiny backfill in 1990 catches up the horizon only, and says the rest is for backfill', async () => {
    const chicago = await addPointLocation(fx.app.db, CHICAGO);
    const { runId } = await fx.planBackfill({
      ...backfillRange('1990-01-01', '1990-01-03', { datasets: ['weather'] }),
      locations: [chicago],
    });
    expect(await work(fx.app, runId!)).toMatchObject({ status: 'done' });

    const now = new Date('2024-06-30T12:00:00Z');
    const plan = await planSyncGaps(fx.app.db, {
      locations: [chicago],
      datasets: ['weather'],
      lookbackHours: 48,
      horizonHours: 30 * 24,
      windowHours: 48,
      now,
    });
    expect(plan.gaps).toEqual([
      {
        dataset: 'weather',
        locationId: chicago.locationId,
        from: new Date('2024-05-31T12:00:00Z'),
        to: new Date('2024-06-30T12:00:00Z'),
      },
    ]);
    expect(plan.leftToBackfill).toHaveLength(1);
    expect(plan.leftToBackfill[0]!.from).toEqual(new Date('1990-01-03T00:00:00Z'));

    // `sync --dry-run` prints the calls a sync would make now, and what is left to backfill.
    const result = await runCliInProcess(['sync', '--dry-run'], fx.cliEnv());
    expect(result.code, result.stderr).toBe(0);
    const end = new Date(Math.floor(Date.now() / H) * H);
    const perPair = countWindows(new Date(end.getTime() - 30 * 24 * H), end, 48);
    const history = (fx.locations.length + 1) * 2 * perPair;
    expect(result.stdout).toContain(`${history} history`);
    expect(result.stdout).toMatch(
      /Chicago weather: \d+ years uncovered before .* run `envdata backfill --dataset weather/,
    );
  });
});
