import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { backfillPlanJson } from '../../src/cli/json/backfill-plan-json.js';
import { locationsJson } from '../../src/cli/json/locations-json.js';
import { runStatusJson } from '../../src/cli/json/run-status-json.js';
import { statusJson } from '../../src/cli/json/status-json.js';
import { syncPlanJson } from '../../src/cli/json/sync-plan-json.js';
import { DATASETS } from '../../src/types.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { retireLocations } from '../../src/ledger/remove-locations.js';
import type { Location } from '../../src/locations/location.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { CHICAGO } from '../fixtures/places.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture({}, { ENVDATA_MAX_ATTEMPTS: '3' });
let retired: Location;
let cleanRunId: number;
let failedRunId: number;

/**
 * Runs `envdata ARGS` and reads its standard output as the one document of `schema`: exit 0, one
 * JSON document and a newline, valid, with no key the schema does not know.
 */
async function document<S extends z.ZodType>(
  schema: S,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<z.infer<S>> {
  const result = await runCliInProcess(args, fx.cliEnv(env));
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^\{\n[\s\S]*\n\}\n$/);
  const raw: unknown = JSON.parse(result.stdout);
  const parsed = schema.safeParse(raw);
  expect(parsed.error).toBeUndefined();
  // zod drops keys it does not know: equal means the document has none the doc leaves out.
  expect(parsed.data).toEqual(raw);
  return parsed.data as z.infer<S>;
}

const iso = (d: Date) => d.toISOString();

beforeAll(async () => {
  retired = await addPointLocation(fx.app.db, CHICAGO);
  await retireLocations(fx.app.db, [retired]);
  const worker = IngestWorker.start(fx.app, { concurrency: 2 });
  try {
    const clean = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-06'),
      locations: fx.locations,
    });
    cleanRunId = clean.runId!;
    await waitForRun(fx.app.db, cleanRunId);
    // Berlin's one weather chunk takes all three 503s (ENVDATA_MAX_ATTEMPTS 3); its pollen lands.
    fx.simulator.addFaultScripts('weather:error=503x3');
    const failing = await startBackfill(fx.app, {
      ...backfillRange('2024-06-06', '2024-06-08'),
      locations: fx.locations.filter((l) => l.name === 'Berlin'),
    });
    failedRunId = failing.runId!;
    await waitForRun(fx.app.db, failedRunId);
  } finally {
    await worker.close();
  }
});

describe('envdata locations list --json', () => {
  it('lists every location of the ledger, retired ones with retiredAt', async () => {
    const doc = await document(locationsJson, ['locations', 'list', '--json']);
    expect(doc).toMatchObject({ kind: 'locations', version: 1 });
    const rows = await fx.app.db
      .selectFrom('location')
      .selectAll()
      .orderBy('location_id')
      .execute();
    const aliases = await fx.app.db.selectFrom('location_alias').selectAll().execute();
    expect(doc.locations).toEqual(
      rows.map((r) => ({
        locationId: r.location_id,
        name: r.name,
        aliases: aliases
          .filter((a) => a.location_id === r.location_id)
          .map((a) => a.alias)
          .sort(),
        answersToName: true,
        lat: r.lat,
        lng: r.lng,
        countryCode: r.country_code,
        timezone: r.timezone,
        pollenRegion: r.pollen_region,
        place: r.place,
        registeredBy: r.registered_by,
        ingestByPlace: r.ingest_by_place,
        retiredAt: r.retired_at === null ? null : iso(r.retired_at),
      })),
    );
    expect(doc.locations.find((l) => l.name === 'Chicago')?.retiredAt).toEqual(expect.any(String));
  });
});

describe('envdata status --json', () => {
  it('reports the runs as the ledger counts them and the freshness of active locations', async () => {
    const doc = await document(statusJson, ['status', '--json']);
    expect(doc).toMatchObject({
      kind: 'status',
      version: 1,
      ledgerRead: true,
      postgres: { ok: true, problem: null, pendingMigrations: [] },
      queue: { ok: true, problem: null, backend: fx.env.queueBackend, workers: [] },
    });
    expect(doc.runs.map((r) => r.runId)).toEqual([failedRunId, cleanRunId]);
    for (const run of doc.runs) {
      const { rows } = await sql<{ done: number; failed: number; rows: number; calls: number }>`
        select (count(*) filter (where status = 'done'))::int as done,
          (count(*) filter (where status = 'failed'))::int as failed,
          sum(rows_landed)::int as rows, sum(calls)::int as calls
        from envdata.chunk where run_id = ${run.runId}`.execute(fx.app.db);
      expect(run.chunks).toMatchObject({ done: rows[0]!.done, failed: rows[0]!.failed });
      expect(run.rows).toBe(rows[0]!.rows);
      expect(run.calls).toBe(rows[0]!.calls);
    }
    expect(doc.runs[0]).toMatchObject({
      status: 'failed',
      chunks: { total: 2, done: 1, failed: 1, inFlight: 0 },
      failuresByCode: { SERVER_ERROR: 1 },
      finishedAt: expect.any(String),
    });

    // Nothing landed twice: nothing re-read, nothing revised, every dataset keyed.
    for (const run of doc.runs) {
      expect(run.revisions).toEqual({
        pollen: { rereadHours: 0, revisedHours: 0, revisedShare: null },
        weather: { rereadHours: 0, revisedHours: 0, revisedShare: null },
      });
    }
    // The archive as Postgres counts it; every body kept while no retention is set.
    const { rows: archive } = await sql<{ answers: number; bodies: number }>`
      select (select count(*) from envdata.answer)::int as answers,
        (select count(*) from envdata.answer_body)::int as bodies`.execute(fx.app.db);
    expect(doc.archive).toEqual({
      answers: archive[0]!.answers,
      bodies: archive[0]!.bodies,
      bytesOnDisk: expect.any(Number),
      retentionDays: null,
    });
    expect(doc.archive!.answers).toBeGreaterThan(0);
    expect(doc.archive!.bytesOnDisk).toBeGreaterThan(0);
    const kept = await document(statusJson, ['status', '--json'], {
      ENVDATA_ARCHIVE_RETENTION_DAYS: '400',
    });
    expect(kept.archive).toMatchObject({ retentionDays: 400 });

    // Active locations only, each with every dataset; lastHour from the coverage.
    expect(doc.freshness.map((f) => f.name).sort()).toEqual(['Berlin', 'Brisbane']);
    const { rows: coverage } = await sql<{ location_id: number; dataset: string; last: Date }>`
      select location_id, dataset::text, upper(landed) - interval '1 hour' as last
      from envdata.coverage`.execute(fx.app.db);
    for (const f of doc.freshness) {
      expect(Object.keys(f.datasets)).toEqual([...DATASETS]);
      for (const dataset of DATASETS) {
        const row = coverage.find((c) => c.location_id === f.locationId && c.dataset === dataset);
        expect(f.datasets[dataset].lastHour).toBe(row ? iso(row.last) : null);
      }
    }
  });

  it('prints its document with ok: false and exits 1 when Postgres does not answer', async () => {
    const result = await runCliInProcess(
      ['status', '--json'],
      fx.cliEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }),
    );
    expect(result.code).toBe(1);
    const parsed = statusJson.safeParse(JSON.parse(result.stdout));
    expect(parsed.error).toBeUndefined();
    expect(parsed.data).toMatchObject({
      postgres: { ok: false, problem: expect.any(String), pendingMigrations: null },
      ledgerRead: false,
      runs: [],
      freshness: [],
      archive: null,
    });
  });
});

describe('envdata status RUN --json', () => {
  it('reports the run and its failed chunks as the ledger holds them', async () => {
    const doc = await document(runStatusJson, ['status', String(failedRunId), '--json']);
    expect(doc).toMatchObject({ kind: 'run-status', version: 1, ledgerRead: true });
    expect(doc.run).toMatchObject({ runId: failedRunId, kind: 'backfill', status: 'failed' });
    const failed = await fx.app.db
      .selectFrom('chunk')
      .innerJoin('location', 'location.location_id', 'chunk.location_id')
      .select([
        'chunk_id',
        'chunk.location_id',
        'location.name',
        'dataset',
        'window_from',
        'window_to',
        'attempts',
        'error_code',
        'error_message',
      ])
      .where('run_id', '=', failedRunId)
      .where('status', '=', 'failed')
      .execute();
    expect(failed).toHaveLength(1);
    const chunk = failed[0]!;
    expect(doc.failedChunks).toEqual([
      {
        code: chunk.error_code,
        message: chunk.error_message,
        chunks: 1,
        examples: [
          {
            chunkId: chunk.chunk_id,
            locationId: chunk.location_id,
            location: chunk.name,
            dataset: chunk.dataset,
            from: iso(chunk.window_from),
            to: iso(chunk.window_to),
            attempts: chunk.attempts,
            // Tracing was off: no trace to name.
            traceId: null,
          },
        ],
      },
    ]);
    expect(doc.failedChunks[0]).toMatchObject({
      code: 'SERVER_ERROR',
      examples: [{ attempts: 3 }],
    });

    const clean = await document(runStatusJson, ['status', String(cleanRunId), '--json']);
    expect(clean.run).toMatchObject({ status: 'done', chunks: { total: 8, done: 8 } });
    expect(clean.failedChunks).toEqual([]);
  });

  it('exits 2 for a run that does not exist, with text on stderr and nothing on stdout', async () => {
    const result = await runCliInProcess(['status', '9999', '--json'], fx.cliEnv());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('envdata: there is no run 9999: see `envdata status`\n');
  });
});

describe('envdata backfill --dry-run --json', () => {
  const args = ['backfill', '--dataset', 'all', '--from', '2024-06-01', '--to', '2024-06-12'];

  it('counts the chunks, calls and gaps the plan then creates, writing nothing itself', async () => {
    const runsBefore = await fx.app.db.selectFrom('run').select('run_id').execute();
    const doc = await document(backfillPlanJson, [...args, '--dry-run', '--json']);
    expect(await fx.app.db.selectFrom('run').select('run_id').execute()).toEqual(runsBefore);
    expect(doc.request).toEqual({
      datasets: ['pollen', 'weather'],
      from: '2024-06-01T00:00:00.000Z',
      to: '2024-06-12T00:00:00.000Z',
      windowHours: 48,
      windowAuto: false,
      locations: fx.locations.map((l) => ({ locationId: l.locationId, name: l.name })),
    });
    // Without a rate limit the duration is unknown, not zero.
    expect(doc).toMatchObject({ durationMs: null, rateLimits: [] });
    const { pollen, weather } = doc.plan.byDataset;
    expect(pollen!.chunks + weather!.chunks).toBe(doc.plan.chunks);

    // The same backfill, for real: its run has as many gaps and chunks as the dry run said.
    const real = await runCliInProcess(args, fx.cliEnv());
    expect(real.code, real.stderr).toBe(0);
    const runId = Number(/^run (\d+):/m.exec(real.stdout)?.[1]);
    const progress = await runProgress(fx.app.db, runId);
    expect(progress!.total).toBe(doc.plan.chunks);
    const gaps = await fx.app.db
      .selectFrom('run_gap')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(gaps.n).toBe(doc.plan.gaps);
    const run = await fx.app.db
      .selectFrom('run')
      .select('request')
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    expect(run.request).toMatchObject({
      estimate: { calls: doc.plan.calls, expectedRows: doc.plan.expectedRows },
    });
    // What landed before (2024-06-02 to 06-08 in part) is not planned again.
    expect(doc.plan.chunks).toBeLessThan(2 * 2 * 6);
    await runCliInProcess(['cancel', String(runId)], fx.cliEnv());
  });

  it('gives the duration at the rate limit when there is one', async () => {
    const doc = await document(backfillPlanJson, [...args, '--dry-run', '--json'], {
      ENVDATA_RATE_LIMIT: '2/s',
    });
    expect(doc.rateLimits).toEqual(['2/s']);
    expect(doc.durationMs).toBeGreaterThanOrEqual(Math.floor(doc.plan.calls / 2) * 1000);
  });

  it.each([
    [['--json'], /^envdata: --json only goes with --dry-run/],
    [['--json', '--wait'], /^envdata: --json only goes with --dry-run/],
  ])('exits 2 on backfill %j without --dry-run, writing nothing', async (extra, message) => {
    const runsBefore = await fx.app.db.selectFrom('run').select('run_id').execute();
    const result = await runCliInProcess([...args, ...extra], fx.cliEnv());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(await fx.app.db.selectFrom('run').select('run_id').execute()).toEqual(runsBefore);
  });
});

describe('envdata sync --dry-run --json', () => {
  it('counts what `sync --now` then plans, and the history left to backfill', async () => {
    // The plan depends on the hour: try again in the rare case the hour turned in between.
    for (let attempt = 0; ; attempt++) {
      const doc = await document(syncPlanJson, ['sync', '--dry-run', '--json']);
      expect(doc).toMatchObject({ kind: 'sync-plan', version: 1, locations: 2 });
      expect(doc.calls).toBe(doc.history.calls + doc.snapshotCalls);

      const real = await runCliInProcess(['sync', '--now'], fx.cliEnv());
      expect(real.code, real.stderr).toBe(0);
      const runId = Number(/^sync run (\d+):/m.exec(real.stdout)?.[1]);
      const run = await fx.app.db
        .selectFrom('run')
        .select('request')
        .where('run_id', '=', runId)
        .executeTakeFirstOrThrow();
      if ((run.request as { to: string }).to !== doc.to && attempt === 0) continue;
      expect((run.request as { to: string }).to).toBe(doc.to);
      expect((await runProgress(fx.app.db, runId))!.total).toBe(doc.history.chunks);
      expect(real.stdout).toContain(
        `${doc.history.gaps} range(s) for 2 location(s), ${doc.snapshotCalls} snapshot job(s)`,
      );

      // Everything landed is older than the horizon: per active location and dataset, the
      // history from where the coverage ends to where the sync starts is left to backfill.
      const horizonStart = iso(new Date(Date.parse(doc.to) - doc.horizonHours * 3_600_000));
      const { rows: ends } = await sql<{ location_id: number; dataset: string; end: Date }>`
        select location_id, dataset::text, upper(landed) as end
        from envdata.coverage`.execute(fx.app.db);
      expect(doc.leftToBackfill).toHaveLength(fx.locations.length * DATASETS.length);
      for (const left of doc.leftToBackfill) {
        const end = ends.find(
          (e) => e.location_id === left.locationId && e.dataset === left.dataset,
        );
        expect(left.from).toBe(iso(end!.end));
        expect(left.to).toBe(horizonStart);
      }
      await runCliInProcess(['cancel', String(runId)], fx.cliEnv());
      return;
    }
  });

  it.each([[['--now', '--json']], [['--json']]])(
    'exits 2 on sync %j, writing nothing',
    async (extra) => {
      const runsBefore = await fx.app.db.selectFrom('run').select('run_id').execute();
      const result = await runCliInProcess(['sync', ...extra], fx.cliEnv());
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^envdata: .*--dry-run/);
      expect(await fx.app.db.selectFrom('run').select('run_id').execute()).toEqual(runsBefore);
    },
  );
});
