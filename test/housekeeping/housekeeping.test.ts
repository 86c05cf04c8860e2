import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createHousekeeping } from '../../src/housekeeping/create-housekeeping.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { compactExportMarks } from '../../src/warehouse/export-marks.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { waitForRun } from '../harness/wait-for-run.js';

// Finished chunks are folded at once: what housekeeping does is seen on its first pass.
const fx = useBackfillFixture({}, { ENVDATA_CHUNK_RETENTION: '0h' });

/** The chunks of `runId` still in the ledger. */
async function chunksOf(runId: number): Promise<number> {
  const { n } = await fx.app.db
    .selectFrom('chunk')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** A backfill of `from`..`to` worked to its end by a worker alone (no housekeeping). */
async function workedWithoutHousekeeping(from: string, to: string) {
  const { runId } = await fx.planBackfill(backfillRange(from, to));
  const worker = IngestWorker.start(fx.app, { concurrency: 4 });
  try {
    const progress = await waitForRun(fx.app.db, runId!);
    expect(progress).toMatchObject({ status: 'done', failed: 0 });
    return { runId: runId!, progress };
  } finally {
    await worker.close();
  }
}

describe('housekeeping', () => {
  it('folds the finished chunks into their run, its progress unchanged; the feeder does not', async () => {
    const { runId, progress } = await workedWithoutHousekeeping('2024-05-01', '2024-05-05');
    expect(await chunksOf(runId)).toBe(progress.done);

    await createHousekeeping(fx.app).pass();
    expect(await chunksOf(runId)).toBe(0);
    expect(await runProgress(fx.app.db, runId)).toEqual(progress);
  });

  it('runs beside every worker the app starts, a pass at once', async () => {
    const { runId } = await workedWithoutHousekeeping('2024-05-07', '2024-05-11');
    expect(await chunksOf(runId)).toBeGreaterThan(0);
    const app = fx.newApp();
    await app.start({ worker: { concurrency: 1 } });
    try {
      await pollUntil(
        async () => ((await chunksOf(runId)) === 0 ? { done: true } : { last: 'chunks left' }),
        { describe: () => 'the worker app folded no chunk' },
      );
    } finally {
      await app.stop();
    }
  });

  it('folds the export marks of a partition into one, its oldest change kept, unseen by earlier snapshots', async () => {
    await workedWithoutHousekeeping('2024-06-01', '2024-06-05');
    const marks = async () =>
      (
        await sql<{ partition: string; n: number; oldest: Date; unseen: number }>`
          select dataset || '/' || year || '-' || month as partition, count(*)::int as n,
                 min(marked_at) as oldest,
                 count(*) filter (where not pg_visible_in_snapshot(xid, ${before}::pg_snapshot))::int as unseen
            from envdata.export_mark group by dataset, year, month order by 1`.execute(fx.app.db)
      ).rows;
    // An export's snapshot, taken before the fold: every landing's mark is visible in it.
    const { rows } = await sql<{
      s: string;
    }>`select pg_current_snapshot()::text as s`.execute(fx.app.db);
    const before = rows[0]!.s;
    const landed = await marks();
    expect(landed.find((m) => m.partition === 'weather_hourly/2024-6')?.n).toBeGreaterThan(1);

    await createHousekeeping(fx.app).pass();
    const folded = await marks();
    expect(folded.map((m) => m.partition)).toEqual(landed.map((m) => m.partition));
    for (const [i, m] of folded.entries()) {
      expect(m.n).toBe(1);
      expect(m.oldest).toEqual(landed[i]!.oldest);
      // A folded partition's one mark is unseen by that snapshot: the next export writes it, as
      // it would have. A partition of one mark is left as it was.
      expect(m.unseen).toBe(landed[i]!.n > 1 ? 1 : 0);
    }
  });

  it('folds around the marks another transaction holds, never waiting on them', async () => {
    // Four changes of January 2023, each its own transaction (as four landings would mark it).
    for (let i = 0; i < 4; i++) {
      await sql`insert into envdata.export_mark (dataset, year, month)
                values ('weather_hourly', 2023, 1)`.execute(fx.app.db);
    }
    const january = async () =>
      (
        await sql<{ xid: string }>`
          select xid::text from envdata.export_mark
           where dataset = 'weather_hourly' and year = 2023 and month = 1 order by xid`.execute(
          fx.app.db,
        )
      ).rows.map((r) => r.xid);
    const marked = await january();
    expect(marked).toHaveLength(4);
    // An export deleting the marks it saw holds them so: the fold must pass them by, not wait.
    const exporter = new pg.Client({ connectionString: fx.env.databaseUrl });
    await exporter.connect();
    try {
      await exporter.query('begin');
      await exporter.query(
        `select 1 from envdata.export_mark where dataset = 'weather_hourly' and year = 2023
            and month = 1 and xid = $1::xid8 for update`,
        [marked[0]],
      );
      await compactExportMarks(fx.app.db);
      const folded = await january();
      expect(folded).toHaveLength(2);
      expect(folded[0]).toBe(marked[0]);
    } finally {
      await exporter.end();
    }
    await compactExportMarks(fx.app.db);
    expect(await january()).toHaveLength(1);
  });
});
