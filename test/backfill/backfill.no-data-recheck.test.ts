import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';

// The service answers "Data not available!" for a while (the simulator's `nodata` knob), then
// its real data. ENVDATA_NO_DATA_RECHECK is the default, 30 days.
const fx = useBackfillFixture({}, { ENVDATA_CHUNK_RETENTION: '0h' });

const berlin = () => fx.locations.filter((l) => l.name === 'Berlin');

/** Berlin's weather over [from, to): 2 chunks of 48 h for 4 days. */
const weather = (from: string, to: string) => ({
  ...backfillRange(from, to, { datasets: ['weather'] }),
  locations: berlin(),
});

/** A dry run of `weather(from, to)` with the app's recheck settings: what it would plan. */
function dryRun(from: string, to: string) {
  const { recheckMs, noDataRecheckMs } = fx.app.config.ingest;
  return fx.planBackfill({ ...weather(from, to), recheckMs, noDataRecheckMs }, { dryRun: true });
}

async function backfill(from: string, to: string) {
  return (await fx.workBackfill(weather(from, to))).progress;
}

/** As if the "no data" answers over [from, to) had come `days` ago. */
async function answeredDaysAgo(days: number, from: string, to: string) {
  await sql`update envdata.coverage_hole set checked_at = now() - make_interval(days => ${days})
    where cause = 'no_data' and hours && tstzrange(${new Date(from)}, ${new Date(to)})`.execute(
    fx.app.db,
  );
}

async function coverageOf(from: string, to: string) {
  const { rows } = await sql<{ rows: number; covered: string; no_data: string }>`
    select (select count(*)::int from envdata.weather_hourly w
        where w.location_id = c.location_id and observed_at >= ${new Date(from)}
          and observed_at < ${new Date(to)}) as rows,
      (covered_ranges * tstzmultirange(tstzrange(${new Date(from)}, ${new Date(to)})))::text as covered,
      (no_data_ranges * tstzmultirange(tstzrange(${new Date(from)}, ${new Date(to)})))::text as no_data
    from analytics.coverage c where location_name = 'Berlin' and dataset = 'weather'`.execute(
    fx.app.db,
  );
  return rows[0]!;
}

const range = (from: string, to: string) =>
  `{["${from.replace('T', ' ').replace('Z', '+00')}","${to.replace('T', ' ').replace('Z', '+00')}")}`;

describe('"Data not available!"', () => {
  it('is asked again once ENVDATA_NO_DATA_RECHECK has passed, and the real data lands', async () => {
    const [from, to] = ['2024-06-02T00:00:00Z', '2024-06-06T00:00:00Z'];
    fx.simulator.setFaults('weather-history:nodata x2');
    const first = await backfill(from, to);
    expect(first).toMatchObject({ status: 'done', done: 2, noDataHours: 96, rows: 0 });
    expect(await coverageOf(from, to)).toEqual({
      rows: 0,
      covered: '{}',
      no_data: range(from, to),
    });
    const summary = await runCliInProcess(['status', String(first.runId)], fx.cliEnv());
    expect(summary.stdout).toMatch(
      /no data \("Data not available!"\): 96 hour\(s\) .*asks again after ENVDATA_NO_DATA_RECHECK/,
    );

    // Within the recheck period a backfill over the range asks for nothing.
    expect((await dryRun(from, to)).estimate.calls).toBe(0);

    // 31 days later it asks again, once per window, and the hours land.
    await answeredDaysAgo(31, from, to);
    fx.simulator.resetStats();
    const again = await backfill(from, to);
    expect(fx.simulator.stats().total).toBe(2);
    expect(again).toMatchObject({ status: 'done', noDataHours: 0, rows: 96 });
    expect(await coverageOf(from, to)).toEqual({
      rows: 96,
      covered: range(from, to),
      no_data: '{}',
    });
  });

  it('answered again on a recheck is not asked again before the next period', async () => {
    const [from, to] = ['2024-06-10T00:00:00Z', '2024-06-14T00:00:00Z'];
    fx.simulator.setFaults('weather-history:nodata x2');
    await backfill(from, to);
    await answeredDaysAgo(31, from, to);
    fx.simulator.setFaults('weather-history:nodata x2');
    fx.simulator.resetStats();
    expect(await backfill(from, to)).toMatchObject({ status: 'done', noDataHours: 96 });
    expect(fx.simulator.stats().total).toBe(2);
    // The answer's time is the recheck's: the next backfill plans no call.
    expect((await dryRun(from, to)).estimate.calls).toBe(0);
    expect(await coverageOf(from, to)).toMatchObject({ rows: 0, no_data: range(from, to) });
  });

  it('is asked again at once by `backfill --recheck-no-data`, and only in its range', async () => {
    const [from, to] = ['2024-06-20T00:00:00Z', '2024-06-24T00:00:00Z'];
    fx.simulator.setFaults('weather-history:nodata x2');
    await backfill(from, to);
    const args = ['backfill', '--dataset', 'weather', '--location', 'Berlin', '--window', '48h'];
    const plain = await runCliInProcess(
      [...args, '--from', '2024-06-20', '--to', '2024-06-24', '--wait'],
      fx.cliEnv(),
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/^nothing to do, no run written/m);

    fx.simulator.resetStats();
    const forced = await runCliInProcess(
      [...args, '--from', '2024-06-20', '--to', '2024-06-22', '--recheck-no-data', '--wait'],
      fx.cliEnv(),
    );
    expect(forced.code, forced.stderr).toBe(0);
    expect(fx.simulator.stats().total).toBe(1);
    expect(await coverageOf(from, to)).toEqual({
      rows: 48,
      covered: range(from, '2024-06-22T00:00:00Z'),
      no_data: range('2024-06-22T00:00:00Z', to),
    });
  });
});
