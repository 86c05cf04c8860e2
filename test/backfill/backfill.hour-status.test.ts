import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_STARTS } from '../../src/datasets/dataset-coverage.js';
import { planRun } from '../../src/planner/plan-run.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

// Re-fetches wait 20 ms, so the policy that makes hours "missing upstream" runs in milliseconds.
const fx = useBackfillFixture(
  {},
  { ENVDATA_REFETCH_ATTEMPTS: '2', ENVDATA_REFETCH_DELAY_MS: '20', ENVDATA_CHUNK_RETENTION: '0h' },
);
const H = 3_600_000;

/** One 48-hour window of Berlin's weather from `from`, the simulator answering with `faults`. */
async function backfillWindow(from: string, faults: string): Promise<void> {
  const berlin = fx.locations.find((l) => l.name === 'Berlin')!;
  if (faults) fx.simulator.setFaults(faults);
  else fx.simulator.clearFaults();
  const { runId } = await planRun(
    fx.app.db,
    {
      kind: 'backfill',
      datasets: ['weather'],
      locations: [berlin],
      from: new Date(from),
      to: new Date(new Date(from).getTime() + 48 * H),
      windowHours: 48,
      recheckMs: fx.app.config.ingest.recheckMs,
    },
    [],
  );
  if (runId === undefined) throw new Error('nothing planned');
  const worker = IngestWorker.start(fx.app, { concurrency: 1 });
  try {
    expect((await waitForRun(fx.app.db, runId)).status).toBe('done');
  } finally {
    await worker.close();
    fx.simulator.clearFaults();
  }
}

/** `status` for each of the `hours` hours from `from`. */
function hoursOf(from: string, hours: number, status: string): [string, string][] {
  const start = new Date(from).getTime();
  return Array.from({ length: hours }, (_, i) => [new Date(start + i * H).toISOString(), status]);
}

let berlinId = 0;

beforeAll(async () => {
  berlinId = fx.locations.find((l) => l.name === 'Berlin')!.locationId;
  // 2024-04-03 to 04-11 on the 48-hour grid: four windows, each answered its own way.
  await backfillWindow('2024-04-03T00:00:00Z', 'weather-history:short=6@100%');
  await backfillWindow('2024-04-05T00:00:00Z', 'weather-history:wrongtype=3@100%');
  await backfillWindow('2024-04-07T00:00:00Z', 'weather-history:nodata@100%');
  await backfillWindow('2024-04-09T00:00:00Z', '');
});

describe('the hour status of a location', () => {
  const expected = [
    ...hoursOf('2024-04-02T22:00:00Z', 2, 'not_fetched'),
    ...hoursOf('2024-04-03T00:00:00Z', 42, 'landed'),
    ...hoursOf('2024-04-04T18:00:00Z', 6, 'missing_upstream'),
    ...hoursOf('2024-04-05T00:00:00Z', 3, 'quarantined'),
    ...hoursOf('2024-04-05T03:00:00Z', 45, 'landed'),
    ...hoursOf('2024-04-07T00:00:00Z', 48, 'no_data'),
    ...hoursOf('2024-04-09T00:00:00Z', 48, 'landed'),
    ...hoursOf('2024-04-11T00:00:00Z', 2, 'not_fetched'),
  ];

  it('says, hour by hour, what each window was answered', async () => {
    const { rows } = await sql<{ observed_at: Date; status: string }>`
      select observed_at, status from analytics.hour_status('weather', ${berlinId},
        '2024-04-02T22:00:00Z', '2024-04-11T02:00:00Z')
      order by observed_at`.execute(fx.app.db);
    expect(rows.map((r) => [r.observed_at.toISOString(), r.status])).toEqual(expected);
  });

  it('is the same through the view, filtered by location and time, with local times', async () => {
    const { rows } = await sql<{ observed_at: Date; local: string; status: string }>`
      select observed_at, observed_at_local::text as local, status
      from analytics.weather_hour_status
      where location_id = ${berlinId}
        and observed_at >= '2024-04-02T22:00:00Z' and observed_at < '2024-04-11T02:00:00Z'
      order by observed_at`.execute(fx.app.db);
    expect(rows.map((r) => [r.observed_at.toISOString(), r.status])).toEqual(expected);
    // Berlin is on summer time (UTC+2) from 2024-03-31.
    expect(rows[0]!.local).toBe('2024-04-03 00:00:00');
  });

  it('joins the hourly facts on (location_id, observed_at): a row exactly for each landed hour', async () => {
    const { rows } = await sql<{ status: string; with_facts: number; hours: number }>`
      select s.status, count(w.observed_at)::int as with_facts, count(*)::int as hours
      from analytics.weather_hour_status s
      left join analytics.weather_hourly w using (location_id, observed_at)
      where s.location_id = ${berlinId}
        and s.observed_at >= '2024-04-01T00:00:00Z' and s.observed_at < '2024-04-15T00:00:00Z'
      group by s.status order by s.status`.execute(fx.app.db);
    expect(rows).toEqual([
      { status: 'landed', with_facts: 135, hours: 135 },
      { status: 'missing_upstream', with_facts: 0, hours: 6 },
      { status: 'no_data', with_facts: 0, hours: 48 },
      { status: 'not_fetched', with_facts: 0, hours: 14 * 24 - 192 },
      { status: 'quarantined', with_facts: 0, hours: 3 },
    ]);
  });

  it("counts, over the dataset's whole history, the hours analytics.coverage holds by cause", async () => {
    const { rows: counts } = await sql<{ status: string; hours: number }>`
      select status, count(*)::int as hours from analytics.weather_hour_status
      where location_id = ${berlinId} group by status`.execute(fx.app.db);
    const { rows: ranges } = await sql<{ status: string; hours: number }>`
      select k.status,
        coalesce(sum(extract(epoch from upper(r) - lower(r)) / 3600), 0)::int as hours
      from analytics.coverage c
      cross join lateral (values ('landed', c.covered_ranges),
        ('missing_upstream', c.missing_upstream_ranges), ('quarantined', c.quarantined_ranges),
        ('not_covered', c.not_covered_ranges), ('no_data', c.no_data_ranges)) k(status, ranges)
      left join lateral unnest(k.ranges) r on true
      where c.location_id = ${berlinId} and c.dataset = 'weather'
      group by k.status`.execute(fx.app.db);
    const { rows: history } = await sql<{ hours: number }>`
      select (extract(epoch from date_trunc('hour', now()) - ${HISTORY_STARTS.weather}::timestamptz)
        / 3600)::int as hours`.execute(fx.app.db);
    const byStatus = (rows: readonly { status: string; hours: number }[]) =>
      Object.fromEntries(rows.filter((r) => r.hours > 0).map((r) => [r.status, r.hours]));
    const known = byStatus(ranges);
    expect(known).toEqual({ landed: 135, missing_upstream: 6, quarantined: 3, no_data: 48 });
    const notFetched = history[0]!.hours - 135 - 6 - 3 - 48;
    expect(byStatus(counts)).toEqual({ ...known, not_fetched: notFetched });
  });

  it("starts at each dataset's history start and ends at the last complete hour", async () => {
    for (const dataset of ['pollen', 'weather'] as const) {
      const { rows } = await sql<{ first: Date; last: Date; now_hour: Date }>`
        select min(observed_at) as first, max(observed_at) as last,
          date_trunc('hour', now()) as now_hour
        from analytics.hour_status(${dataset}, ${berlinId})`.execute(fx.app.db);
      expect(rows[0]!.first, dataset).toEqual(HISTORY_STARTS[dataset]);
      expect(rows[0]!.last.getTime(), dataset).toBe(rows[0]!.now_hour.getTime() - H);
    }
    // Bounds outside the history are clipped; an unknown dataset has no hours.
    const { rows } = await sql<{ n: number }>`
      select (select count(*) from analytics.hour_status('pollen', ${berlinId},
          '2015-12-31T22:00:00Z', '2016-01-01T02:00:00Z'))::int
        + 1000 * (select count(*) from analytics.hour_status('ozone', ${berlinId}))::int as n`.execute(
      fx.app.db,
    );
    expect(rows[0]!.n).toBe(2);
  });
});
