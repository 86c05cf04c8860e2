import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runProgress } from '../../src/ledger/run-progress.js';
import { backfillArgs, backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';

// A hostile upstream answers 200 "success" but incompletely or inconsistently. Re-fetches wait
// 20 ms (doubling) so the policy runs in milliseconds here.
const fx = useBackfillFixture(
  {},
  { ENVDATA_REFETCH_ATTEMPTS: '2', ENVDATA_REFETCH_DELAY_MS: '20', ENVDATA_CHUNK_RETENTION: '0h' },
);
const H = 3_600_000;

/** Berlin's weather or pollen over [from, to) — on the 48 h grid, so 2 chunks for 4 days. */
function backfill(dataset: 'weather' | 'pollen', from: string, to: string) {
  const locations = fx.locations.filter((l) => l.name === 'Berlin');
  return fx.workBackfill({ ...backfillRange(from, to, { datasets: [dataset] }), locations });
}

interface CoverageRow {
  covered: string;
  missing: string;
  quarantined: string;
}

async function coverageOf(dataset: string): Promise<CoverageRow> {
  const { rows } = await sql<CoverageRow>`
    select covered_ranges::text as covered, missing_upstream_ranges::text as missing,
      quarantined_ranges::text as quarantined
    from analytics.coverage where location_name = 'Berlin' and dataset = ${dataset}`.execute(
    fx.app.db,
  );
  return rows[0]!;
}

const range = (from: string, to: string) =>
  `["${from.replace('T', ' ').replace('Z', '+00')}","${to.replace('T', ' ').replace('Z', '+00')}")`;

describe('a 200 "success" that lacks hours', () => {
  it('is fetched again, and a hole the service fills on the re-fetch leaves no trace', async () => {
    fx.simulator.resetStats();
    fx.simulator.setFaults('weather-history:short=6x1');
    const { progress } = await backfill('weather', '2024-04-03T00:00:00Z', '2024-04-07T00:00:00Z');
    expect(progress).toMatchObject({ status: 'done', done: 2, missingHours: 0 });
    // Two chunks, one of them asked twice.
    expect(fx.simulator.stats().total).toBe(3);
    expect(progress.calls).toBe(3);
    expect(await coverageOf('weather')).toEqual({
      covered: `{${range('2024-04-03T00:00:00Z', '2024-04-07T00:00:00Z')}}`,
      missing: '{}',
      quarantined: '{}',
    });
  });

  it('records hours the service never sends as missing upstream after the re-fetch policy', async () => {
    fx.simulator.resetStats();
    fx.simulator.setFaults('weather-history:short=6@100%');
    const { runId, progress } = await backfill(
      'weather',
      '2024-05-03T00:00:00Z',
      '2024-05-07T00:00:00Z',
    );
    // Each chunk: the first answer and two re-fetches, all without its last six hours.
    expect(fx.simulator.stats().total).toBe(2 * 3);
    expect(progress).toMatchObject({ status: 'done', done: 2, missingHours: 12, calls: 6 });
    const coverage = await coverageOf('weather');
    expect(coverage.missing).toBe(
      `{${range('2024-05-04T18:00:00Z', '2024-05-05T00:00:00Z')},${range('2024-05-06T18:00:00Z', '2024-05-07T00:00:00Z')}}`,
    );
    // covered_ranges holds exactly the hours whose rows are in the facts.
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.weather_hourly w
      join envdata.location l using (location_id)
      where l.name = 'Berlin' and observed_at >= '2024-05-03' and observed_at < '2024-05-07'`.execute(
      fx.app.db,
    );
    expect(rows[0]!.n).toBe(96 - 12);
    expect(coverage.covered).toBe(
      `{${range('2024-04-03T00:00:00Z', '2024-04-07T00:00:00Z')},${range('2024-05-03T00:00:00Z', '2024-05-04T18:00:00Z')},${range('2024-05-05T00:00:00Z', '2024-05-06T18:00:00Z')}}`,
    );

    // The summary and the exit code of `status RUN` say so.
    const status = await runCliInProcess(['status', String(runId)], cliEnv());
    expect(status.stdout).toMatch(/missing upstream: 12 hour\(s\)/);

    // Within the recheck interval a backfill over the range asks for nothing again.
    fx.simulator.clearFaults();
    fx.simulator.resetStats();
    const again = await fx.planBackfill(
      {
        ...backfillRange('2024-05-03', '2024-05-07', { datasets: ['weather'] }),
        locations: fx.locations.filter((l) => l.name === 'Berlin'),
        recheckMs: H,
      },
      { dryRun: true },
    );
    expect(again.estimate.calls).toBe(0);
    // Once the recheck interval (ENVDATA_MISSING_RECHECK, 24 h) has passed, the holes are asked
    // for again — and fill.
    await sql`update envdata.coverage_hole set checked_at = now() - interval '25 hours'`.execute(
      fx.app.db,
    );
    const refill = await backfill('weather', '2024-05-03T00:00:00Z', '2024-05-07T00:00:00Z');
    expect(fx.simulator.stats().total).toBe(2);
    expect(refill.progress).toMatchObject({ status: 'done', missingHours: 0 });
    expect((await coverageOf('weather')).missing).toBe('{}');
  });

  it('treats an empty "success" as hours missing, not as a clean zero', async () => {
    fx.simulator.resetStats();
    fx.simulator.setFaults('pollen-history:empty@100%');
    const { progress } = await backfill('pollen', '2024-06-02T00:00:00Z', '2024-06-04T00:00:00Z');
    expect(fx.simulator.stats().total).toBe(3);
    expect(progress).toMatchObject({ status: 'done', rows: 0, missingHours: 48 });
    expect((await coverageOf('pollen')).missing).toBe(
      `{${range('2024-06-02T00:00:00Z', '2024-06-04T00:00:00Z')}}`,
    );
    fx.simulator.clearFaults();
  });
});

describe('an hour sent twice with different values', () => {
  it('is quarantined with both values, lands no row, and fails `backfill --wait` with the counts', async () => {
    fx.simulator.setFaults('weather-history:conflict@100%');
    fx.simulator.resetStats();
    const result = await runCliInProcess(
      backfillArgs('weather', 'Berlin', '2024-03-02', '2024-03-06', '--wait'),
      cliEnv(),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/quarantined: 4 record\(s\), 2 hour\(s\) without rows/);
    expect(result.stdout).toMatch(/exit 1: hours of the plan are quarantined/);
    // The first hour of each window conflicts on every call: asked three times, then recorded.
    expect(fx.simulator.stats().total).toBe(6);
    const { rows } = await sql<{ reason: string; observed_at: Date }>`
      select reason, observed_at from envdata.quarantine q join envdata.location l using (location_id)
      where l.name = 'Berlin' and q.observed_at = '2024-03-02T00:00:00Z'`.execute(fx.app.db);
    expect(rows.length).toBe(2);
    expect(rows[0]!.reason).toMatch(/temperatureC -?[\d.]+ vs -?[\d.]+/);
    const { rows: facts } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.weather_hourly
      where observed_at in ('2024-03-02T00:00:00Z', '2024-03-04T00:00:00Z')`.execute(fx.app.db);
    expect(facts[0]!.n).toBe(0);
    expect((await coverageOf('weather')).quarantined).toBe(
      `{${range('2024-03-02T00:00:00Z', '2024-03-02T01:00:00Z')},${range('2024-03-04T00:00:00Z', '2024-03-04T01:00:00Z')}}`,
    );
    fx.simulator.clearFaults();
  });

  it('collapses identical repeats quietly', async () => {
    fx.simulator.setFaults('weather-history:duplicate=3@100%');
    const { runId, progress } = await backfill(
      'weather',
      '2024-02-03T00:00:00Z',
      '2024-02-05T00:00:00Z',
    );
    expect(progress).toMatchObject({ status: 'done', recordsQuarantined: 0, missingHours: 0 });
    expect((await runProgress(fx.app.db, runId))!.rows).toBe(48);
    fx.simulator.clearFaults();
  });
});

function cliEnv(): Record<string, string> {
  return fx.cliEnv({ ENVDATA_REFETCH_DELAY_MS: '20', ENVDATA_RETRY_BASE_MS: '20' });
}
