import { describe, expect, it } from 'vitest';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { useCleanReference } from './clean-reference.js';
import { runChunks } from './run-chunks.js';
import { factRows, warehouseDigest } from './warehouse-digest.js';

const HOUR_MS = 3_600_000;
// Archived, as by default: a 12-hour piece can send cloud cover only as 1 (overcast), which
// tells no unit; with nothing remembered yet it is set aside, then filled from the archive
// once another piece has told the unit, before the run closes.
const fx = useBackfillFixture({ maxRangeHours: 12 }, { ENVDATA_ARCHIVE_RAW: 'true' });
const reference = useCleanReference();
// One 48-hour window per dataset and location: 4 chunks the service refuses as too long.
const range = backfillRange('2024-06-02', '2024-06-04');

describe('a service that refuses ranges longer than 12 h', () => {
  it('splits each 48-hour chunk in halves down to 12 h and lands every hour', async () => {
    const start = await startBackfill(fx.app, { ...range, locations: fx.locations });
    expect(start.estimate.chunks).toBe(4);
    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      const progress = await waitForRun(fx.app.db, start.runId!);
      expect(progress).toMatchObject({ status: 'done', done: 16, failed: 0, total: 16 });
    } finally {
      await worker.close();
    }

    const chunks = await runChunks(fx.app.db, start.runId!);
    const hours = (c: (typeof chunks)[number]) =>
      (c.window_to.getTime() - c.window_from.getTime()) / HOUR_MS;
    const split = chunks.filter((c) => c.status === 'split');
    const done = chunks.filter((c) => c.status === 'done');
    // 48 h → 2 × 24 h → 4 × 12 h: three splits per planned chunk, four 12-hour leaves.
    expect(split).toHaveLength(12);
    expect(done).toHaveLength(16);
    expect(chunks).toHaveLength(28);
    expect(new Set(split.map((c) => `${c.error_code} ${hours(c)}`))).toEqual(
      new Set(['RANGE_TOO_LONG 48', 'RANGE_TOO_LONG 24']),
    );
    expect(new Set(done.map(hours))).toEqual(new Set([12]));
    expect(chunks.filter((c) => c.parent_chunk_id === null).map(hours)).toEqual([48, 48, 48, 48]);
    for (const parent of split) {
      const halves = chunks
        .filter((c) => c.parent_chunk_id === parent.chunk_id)
        .sort((a, b) => a.window_from.getTime() - b.window_from.getTime());
      expect(halves).toHaveLength(2);
      expect(halves[0]!.window_from).toEqual(parent.window_from);
      expect(halves[0]!.window_to).toEqual(halves[1]!.window_from);
      expect(halves[1]!.window_to).toEqual(parent.window_to);
      for (const half of halves) {
        expect(half).toMatchObject({ dataset: parent.dataset, location_id: parent.location_id });
      }
    }

    // One 400 per split, one 200 per leaf, nothing else.
    expect(fx.simulator.stats().byStatus).toEqual({ '400': split.length, '200': done.length });
    const digest = await warehouseDigest(fx.app.db);
    expect(factRows(digest)).toBe(start.estimate.expectedRows);
    expect(digest).toEqual(await reference.digestAfter(range));
  });
});
