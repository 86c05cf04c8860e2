import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runStatusJson } from '../../src/cli/json/run-status-json.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { backfillArgs, backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { workRun } from '../harness/work-run.js';

// A hostile upstream answers 200 "success" with records its contract does not allow. No
// re-fetch: each chunk's first answer is its last, so what it makes of the records is final.
// Windows start on even epoch days (the 48 h grid) before the simulator's now (2024-06-30).
const fx = useBackfillFixture(
  {},
  { ENVDATA_REFETCH_ATTEMPTS: '0', ENVDATA_ARCHIVE_RAW: 'true', ENVDATA_CHUNK_RETENTION: '0h' },
);

/** Berlin's `dataset` over [from, to) (48 h grid), worked to its end by an in-process worker. */
function backfill(dataset: 'weather' | 'pollen', from: string, to: string) {
  const locations = fx.locations.filter((l) => l.name === 'Berlin');
  return fx.workBackfill(
    { ...backfillRange(from, to, { datasets: [dataset] }), locations },
    { concurrency: 2 },
  );
}

/**
 * `backfill` of `dataset`'s one 48-hour window from `day` while every answer carries a `kind`
 * record: its `[from, to)` as UTC instants, the run and its last progress.
 */
async function backfillWithFault(kind: string, dataset: 'weather' | 'pollen', day: string) {
  const from = `${day}T00:00:00Z`;
  const to = new Date(Date.parse(from) + 48 * 3_600_000).toISOString();
  fx.simulator.setFaults(`${dataset}-history:${kind}@100%`);
  try {
    return { from, to, ...(await backfill(dataset, from, to)) };
  } finally {
    fx.simulator.clearFaults();
  }
}

/** `analytics.coverage` of Berlin's `dataset` within [from, to). */
async function coverageWithin(dataset: string, from: string, to: string) {
  const { rows } = await sql<{ covered: string; missing: string; quarantined: string }>`
    select
      (covered_ranges * tstzmultirange(tstzrange(${from}::timestamptz, ${to}::timestamptz)))::text as covered,
      (missing_upstream_ranges * tstzmultirange(tstzrange(${from}::timestamptz, ${to}::timestamptz)))::text as missing,
      (quarantined_ranges * tstzmultirange(tstzrange(${from}::timestamptz, ${to}::timestamptz)))::text as quarantined
    from analytics.coverage where location_name = 'Berlin' and dataset = ${dataset}`.execute(
    fx.app.db,
  );
  return rows[0]!;
}

/** The run's quarantine entries, in record order. */
async function quarantineOf(runId: number) {
  const { rows } = await sql<{ raw: unknown; reason: string; observed_at: Date | null }>`
    select raw, reason, observed_at from envdata.quarantine where run_id = ${runId}
    order by observed_at, record_index`.execute(fx.app.db);
  return rows;
}

const range = (from: string, to: string) => `["${from}+00","${to}+00")`;

function cliEnv(): Record<string, string> {
  return fx.cliEnv({ ENVDATA_RETRY_BASE_MS: '20' });
}

/** `envdata backfill --wait` of Berlin's `dataset` over the days [from, to) while `faults` hold. */
async function backfillWaitWith(faults: string, dataset: string, from: string, to: string) {
  fx.simulator.setFaults(faults);
  try {
    return await runCliInProcess(backfillArgs(dataset, 'Berlin', from, to, '--wait'), cliEnv());
  } finally {
    fx.simulator.clearFaults();
  }
}

describe('a record the parser rejects, with a readable hour', () => {
  it('quarantines its hour (not "missing upstream") and fails `backfill --wait`', async () => {
    const result = await backfillWaitWith(
      'pollen-history:badrisk=2@100%',
      'pollen',
      '2024-03-02',
      '2024-03-06',
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/quarantined: 4 record\(s\), 4 hour\(s\) without rows/);
    expect(result.stdout).not.toMatch(/missing upstream/);
    expect(result.stdout).toMatch(/exit 1: hours of the plan are quarantined/);
    expect(await coverageWithin('pollen', '2024-03-02', '2024-03-06')).toEqual({
      covered: `{${range('2024-03-02 02:00:00', '2024-03-04 00:00:00')},${range('2024-03-04 02:00:00', '2024-03-06 00:00:00')}}`,
      missing: '{}',
      quarantined: `{${range('2024-03-02 00:00:00', '2024-03-02 02:00:00')},${range('2024-03-04 00:00:00', '2024-03-04 02:00:00')}}`,
    });
  });

  it.each([
    ['wrongtype', 'pollen', '2024-04-03', /Count\.tree_pollen is not a number: \[8\]/],
    ['wrongtype', 'weather', '2024-04-05', /temperature is not a number: true/],
    ['millis', 'pollen', '2024-04-07', /time is epoch milliseconds, not seconds/],
    ['millis', 'weather', '2024-04-09', /time is epoch milliseconds, not seconds/],
  ] as const)(
    '%s on %s: the hour is quarantined with the reason',
    async (kind, dataset, day, reason) => {
      const { from, runId, progress } = await backfillWithFault(kind, dataset, day);
      expect(progress).toMatchObject({
        status: 'done',
        failed: 0,
        recordsQuarantined: 1,
        quarantinedHours: 1,
        missingHours: 0,
        unplaceableRecords: 0,
      });
      const [entry] = await quarantineOf(runId);
      expect(entry).toMatchObject({
        reason: expect.stringMatching(reason),
        observed_at: new Date(from),
      });
    },
  );
});

describe('a record with no readable hour', () => {
  it('is counted unplaceable, listed by `status RUN` (and --json), and fails `backfill --wait`', async () => {
    const result = await backfillWaitWith(
      'weather-history:blank@100%',
      'weather',
      '2024-05-03',
      '2024-05-05',
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/quarantined: 1 record\(s\), 0 hour\(s\) without rows/);
    expect(result.stdout).toMatch(/unplaceable: 1 of them sent without a readable hour/);
    // Its hour is one the service did not send in a readable record: missing upstream.
    expect(result.stdout).toMatch(/missing upstream: 1 hour\(s\)/);
    expect(result.stdout).toMatch(/exit 1: the service sent records that could not be placed/);
    const runId = Number(/run (\d+) \(backfill\) done/.exec(result.stdout)![1]);

    const status = await runCliInProcess(['status', String(runId)], cliEnv());
    expect(status.stdout).toMatch(
      /records sent without a readable hour[^\n]*\n {2}Berlin weather_history record 0 \(chunk \d+\): no timestamp/,
    );
    const json = await runCliInProcess(['status', String(runId), '--json'], cliEnv());
    const document = runStatusJson.parse(JSON.parse(json.stdout));
    expect(document.run?.recordsUnplaceable).toBe(1);
    expect(document.unplaceableRecords).toEqual([
      expect.objectContaining({
        location: 'Berlin',
        source: 'weather_history',
        recordIndex: 0,
        reason: expect.stringMatching(/^no timestamp/),
      }),
    ]);
  });
});

describe('a string Postgres cannot store', () => {
  it.each([
    ['nul', 'pollen', '2024-02-01', /a species name of Species\.Tree contains a NUL character/],
    ['long', 'pollen', '2024-02-03', /a species name of Species\.Tree is a name of 9000 bytes/],
    ['nulvalue', 'pollen', '2024-02-05', /Risk\.tree_pollen is not a risk level/],
    ['nul', 'weather', '2024-02-07', /summary contains a NUL character/],
    ['nulvalue', 'weather', '2024-02-09', /temperature is not a number/],
  ] as const)(
    '%s on %s quarantines its record with the reason, and the rest of the chunk lands',
    async (kind, dataset, day, reason) => {
      const { from, to, runId, progress } = await backfillWithFault(kind, dataset, day);
      expect(progress).toMatchObject({
        status: 'done',
        done: 1,
        failed: 0,
        recordsQuarantined: 1,
        quarantinedHours: 1,
        missingHours: 0,
      });
      const second = new Date(Date.parse(from) + 3_600_000).toISOString();
      expect(await coverageWithin(dataset, from, to)).toEqual({
        covered: `{${range(second.slice(0, 19).replace('T', ' '), to.slice(0, 19).replace('T', ' '))}}`,
        missing: '{}',
        quarantined: `{${range(from.slice(0, 19).replace('T', ' '), second.slice(0, 19).replace('T', ' '))}}`,
      });
      const [entry] = await quarantineOf(runId);
      expect(entry!.reason).toMatch(reason);
      expect(entry!.observed_at).toEqual(new Date(from));
      // The stored copy shows the NUL as the text \u0000; the archive keeps the body as received.
      const copy = JSON.stringify(entry!.raw);
      if (kind !== 'long') expect(copy).toContain('\\\\u0000');
      const { rows } = await sql<{ body: Buffer }>`
        select body from envdata.raw_payload where run_id = ${runId}`.execute(fx.app.db);
      const body = gunzipSync(rows[0]!.body).toString('utf8');
      if (kind !== 'long') expect(body).toContain('\\u0000');
    },
  );

  it('a 9,000-character weather summary is no key: it lands as sent', async () => {
    fx.simulator.setFaults('weather-history:long@100%');
    const { progress } = await backfill('weather', '2024-02-11T00:00:00Z', '2024-02-13T00:00:00Z');
    fx.simulator.clearFaults();
    expect(progress).toMatchObject({ status: 'done', rows: 48, recordsQuarantined: 0 });
    const { rows } = await sql<{ n: number }>`
      select length(summary)::int as n from envdata.weather_hourly
      where observed_at = '2024-02-11T00:00:00Z'`.execute(fx.app.db);
    expect(rows[0]!.n).toBe(9000);
  });

  it('`retry` of a failed chunk whose answer still carries a NUL lands it done, not INTERNAL', async () => {
    const app = fx.newApp({ ENVDATA_MAX_ATTEMPTS: '1' });
    // The first call fails (the chunk gives up after one attempt); every answer after it carries
    // a NUL in the first hour's species name.
    fx.simulator.setFaults('pollen-history:error=503x1; pollen-history:nul@100%');
    const run = await startBackfill(app, {
      ...backfillRange('2024-02-15', '2024-02-17', { datasets: ['pollen'] }),
      locations: fx.locations.filter((l) => l.name === 'Berlin'),
    });
    expect(await workRun(app, run.runId, { concurrency: 1 })).toMatchObject({
      status: 'failed',
      failed: 1,
    });
    const retried = await runCliInProcess(['retry', String(run.runId), '--wait'], cliEnv());
    fx.simulator.clearFaults();
    expect(retried.stdout).toMatch(/done: 1\/1 chunks done, 0 failed/);
    expect(retried.stdout).toMatch(/quarantined: 1 record\(s\), 1 hour\(s\) without rows/);
    expect(retried.stdout).not.toMatch(/INTERNAL/);
    // Done, with a quarantined hour: not a clean run.
    expect(retried.code).toBe(1);
  });
});
