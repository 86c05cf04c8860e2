import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_PRODUCTS } from '../../src/datasets/snapshot-products.js';
import { countWindows } from '../../src/windows/tile-windows.js';
import { startSync } from '../../src/sync/start-sync.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForQueueEmpty } from '../harness/poll-until.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture({}, { ENVDATA_SYNC_LOOKBACK: '48h' });
const H = 3_600_000;

async function runToEnd(runId: number): Promise<void> {
  const worker = IngestWorker.start(fx.app, { concurrency: 4 });
  try {
    const progress = await waitForRun(fx.app.db, runId);
    expect(progress.status).toBe('done');
    // Snapshot jobs ride the same queue; wait until it is empty of them too.
    await waitForQueueEmpty(fx.app);
  } finally {
    await worker.close();
  }
}

describe('the sync', () => {
  const t0 = new Date('2024-06-10T02:00:00Z');

  it('after a backfill up to T0, a sync three days later makes exactly the calls the gap needs', async () => {
    fx.simulator.setOptions({ now: t0.toISOString() });
    const { runId } = await fx.planBackfill({ ...backfillRange('2024-06-02', t0), now: t0 });
    await runToEnd(runId!);

    const t3 = new Date(t0.getTime() + 72 * H);
    fx.simulator.setOptions({ now: t3.toISOString() });
    fx.simulator.resetStats();
    const sync = await startSync(fx.app, t3);
    await runToEnd(sync.runId);
    // History: from T0 minus the 48 h lookback up to T3, per location and dataset.
    const windows = countWindows(new Date(t0.getTime() - 48 * H), t3, 48);
    const history = fx.locations.length * 2 * windows;
    const snapshots = fx.locations.length * SNAPSHOT_PRODUCTS.length;
    expect(fx.simulator.stats().total).toBe(history + snapshots);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.weather_hourly
      where observed_at >= ${t0} and observed_at < ${t3}`.execute(fx.app.db);
    expect(rows[0]!.n).toBe(fx.locations.length * 72);
  });

  it('a second sync within the same hour makes only the lookback calls', async () => {
    const t3 = new Date(t0.getTime() + 72 * H + 20 * 60_000);
    fx.simulator.resetStats();
    const sync = await startSync(fx.app, t3);
    await runToEnd(sync.runId);
    const end = new Date(Math.floor(t3.getTime() / H) * H);
    const windows = countWindows(new Date(end.getTime() - 48 * H), end, 48);
    expect(fx.simulator.stats().total).toBe(
      fx.locations.length * (2 * windows + SNAPSHOT_PRODUCTS.length),
    );
  });

  it('stores latest readings and forecasts, and the accuracy view pairs them with observations', async () => {
    const { rows: stored } = await sql<{ product: string; n: number }>`
      select product::text, count(distinct location_id)::int as n from envdata.weather_snapshot
      group by 1 order by 1`.execute(fx.app.db);
    expect(stored).toEqual([
      { product: 'forecast_72h', n: 2 },
      { product: 'latest', n: 2 },
    ]);
    // Observations of the hours the first sync forecast arrive with a later sync.
    const t6 = new Date(t0.getTime() + 6 * 24 * H);
    fx.simulator.setOptions({ now: t6.toISOString() });
    const sync = await startSync(fx.app, t6);
    await runToEnd(sync.runId);
    const { rows } = await sql<{ dataset: string; n: number }>`
      select dataset, count(*)::int as n from analytics.forecast_accuracy group by 1 order by 1`.execute(
      fx.app.db,
    );
    expect(rows.map((r) => r.dataset)).toEqual(['pollen', 'weather']);
    for (const r of rows) expect(r.n).toBeGreaterThan(0);

    // The daily rollup, refreshed when the sync's run finished, says what the pairs say.
    const fromPairs = await sql<AccuracyDay>`
      select a.location_id, (a.forecast_for at time zone l.timezone)::date::text as local_date,
        a.product, a.measure, ceil(a.lead_hours / 24)::int as lead_day, count(*)::int as pairs,
        count(a.forecast_value - a.observed_value)::int as compared,
        sum(abs(a.forecast_value - a.observed_value)) as abs_error_sum,
        sum(a.forecast_value - a.observed_value) as error_sum,
        count(a.forecast_risk_level = a.observed_risk_level)::int as risk_compared,
        (count(*) filter (where a.forecast_risk_level = a.observed_risk_level))::int as risk_hits
      from analytics.forecast_accuracy a join analytics.locations l using (location_id)
      group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`.execute(fx.app.db);
    const fromRollup = await sql<AccuracyDay>`
      select location_id, local_date::text, product, measure, lead_day, pairs, compared,
        abs_error_sum, error_sum,
        case when dataset = 'pollen' then risk_compared else 0 end as risk_compared,
        case when dataset = 'pollen' then risk_hits else 0 end as risk_hits
      from analytics.forecast_accuracy_daily order by 1, 2, 3, 4, 5`.execute(fx.app.db);
    expect(fromRollup.rows.length).toBeGreaterThan(0);
    expect(fromRollup.rows.map(exactPart)).toEqual(fromPairs.rows.map(exactPart));
    fromRollup.rows.forEach((r, i) => {
      expect(r.abs_error_sum).toBeCloseTo(fromPairs.rows[i]!.abs_error_sum, 6);
      expect(r.error_sum).toBeCloseTo(fromPairs.rows[i]!.error_sum, 6);
    });
    expect(fromRollup.rows.some((r) => r.risk_compared > 0)).toBe(true);
  });
});

interface AccuracyDay {
  location_id: number;
  local_date: string;
  product: string;
  measure: string;
  lead_day: number;
  pairs: number;
  compared: number;
  abs_error_sum: number;
  error_sum: number;
  risk_compared: number;
  risk_hits: number;
}

/** An accuracy day without its sums of floats (compared to a few digits). */
function exactPart({ abs_error_sum: _a, error_sum: _e, ...rest }: AccuracyDay) {
  return rest;
}
