import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { useCleanReference } from './clean-reference.js';
import { runChunks, waitForChunk, type ChunkRow } from './run-chunks.js';
import { warehouseDigest } from './warehouse-digest.js';

// The first two history answers are trimmed (206, body cut mid-way). A retry waits at least
// a second: time to look at the warehouse between the trimmed landing and the re-fetch.
const fx = useBackfillFixture(
  { faults: 'history:truncated x2' },
  { ENVDATA_RETRY_BASE_MS: '2000' },
);
const reference = useCleanReference();
// 2 datasets × 2 locations × 2 windows of 48 h.
const range = backfillRange('2024-06-02', '2024-06-06');

/** Fact rows of the chunk's dataset, location and window now in the warehouse. */
async function rowsInWindow(chunk: ChunkRow): Promise<number> {
  const tables =
    chunk.dataset === 'weather' ? ['weather_hourly'] : ['pollen_hourly', 'pollen_species_hourly'];
  let n = 0;
  for (const table of tables) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(`envdata.${table}`)}
      where location_id = ${chunk.location_id}
        and observed_at >= ${chunk.window_from} and observed_at < ${chunk.window_to}`.execute(
      fx.app.db,
    );
    n += rows[0]!.n;
  }
  return n;
}

describe('a service that trims its answer (206)', () => {
  it('keeps the trimmed rows, fetches the chunk again and ends equal to a clean run', async () => {
    const start = await startBackfill(fx.app, { ...range, locations: fx.locations });
    expect(start.estimate.chunks).toBe(8);
    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const trimmed = await waitForChunk(
        fx.app.db,
        start.runId!,
        (c) => c.error_code === 'PARTIAL' && c.status === 'queued',
      );
      const landed = await rowsInWindow(trimmed);
      const [still] = await fx.app.db
        .selectFrom('chunk')
        .selectAll()
        .where('chunk_id', '=', trimmed.chunk_id)
        .execute();
      // Counted while the chunk still waited for its re-fetch: the trimmed rows themselves.
      expect(still).toEqual(trimmed);
      expect(trimmed.rows_landed).toBeGreaterThan(0);
      expect(landed).toBe(trimmed.rows_landed);

      const progress = await waitForRun(fx.app.db, start.runId!);
      expect(progress).toMatchObject({ status: 'done', done: 8, failed: 0 });
      expect(await rowsInWindow(trimmed)).toBeGreaterThan(landed);
    } finally {
      await worker.close();
    }

    const stats = fx.simulator.stats();
    expect(stats.byStatus).toEqual({ '206': 2, '200': 8 });
    const chunks = await runChunks(fx.app.db, start.runId!);
    expect(new Set(chunks.map((c) => `${c.status} ${c.error_code}`))).toEqual(
      new Set(['done null']),
    );
    expect(chunks.reduce((n, c) => n + c.attempts - 1, 0)).toBe(2);
    // The ledger counts each call once, trimmed ones included.
    expect(chunks.reduce((n, c) => n + c.calls, 0)).toBe(stats.total);
    expect(await warehouseDigest(fx.app.db)).toEqual(await reference.digestAfter(range));
  });
});
