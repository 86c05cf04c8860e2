import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { startHugeBodyServer, type HugeBodyServer } from '../harness/huge-body-server.js';
import { rssGrowth } from '../harness/rss-growth.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { runChunks, type ChunkRow } from './run-chunks.js';

const HOUR_MS = 3_600_000;
const MB = 1024 * 1024;
const fx = useBackfillFixture({}, { ENVDATA_ARCHIVE_RAW: 'true' });
const hours = (c: ChunkRow) => (c.window_to.getTime() - c.window_from.getTime()) / HOUR_MS;
let huge: HugeBodyServer | undefined;

afterAll(async () => {
  await huge?.close();
});

/** The largest raw payload archived for the run's chunks (uncompressed bytes), 0 when none. */
async function largestArchived(runId: number): Promise<{ n: number; largest: number }> {
  const { rows } = await sql<{ n: number; largest: number }>`
    select count(*)::int as n, coalesce(max(p.body_bytes), 0)::int as largest
    from envdata.raw_payload p join envdata.chunk c using (chunk_id)
    where c.run_id = ${runId}`.execute(fx.app.db);
  return rows[0]!;
}

describe('a service answer larger than ENVDATA_HTTP_MAX_BODY_BYTES', () => {
  it('splits the chunk into shorter windows until each answer fits, and lands every hour', async () => {
    // 48 h answers of the simulator are 16-22 kB for these places, 24 h ones 8-11 kB.
    const limit = 12_000;
    const app = fx.newApp({ ENVDATA_HTTP_MAX_BODY_BYTES: String(limit) });
    const start = await startBackfill(app, {
      ...backfillRange('2024-06-02', '2024-06-06'),
      locations: fx.locations,
    });
    expect(start.estimate.chunks).toBe(8);
    const worker = IngestWorker.start(app, { concurrency: 4 });
    try {
      const progress = await waitForRun(app.db, start.runId!);
      expect(progress).toMatchObject({ status: 'done', failed: 0, done: 16, total: 16 });
      expect(progress.rows).toBe(start.estimate.expectedRows);
    } finally {
      await worker.close();
    }
    const chunks = await runChunks(app.db, start.runId!);
    const split = chunks.filter((c) => c.status === 'split');
    expect(new Set(split.map((c) => `${c.error_code} ${hours(c)}`))).toEqual(
      new Set(['RESPONSE_TOO_LARGE 48']),
    );
    expect(split).toHaveLength(8);
    expect(new Set(chunks.filter((c) => c.status === 'done').map(hours))).toEqual(new Set([24]));
    // What was archived is what fit: nothing over the limit.
    const archived = await largestArchived(start.runId!);
    expect(archived.n).toBe(16);
    expect(archived.largest).toBeLessThanOrEqual(limit);
  });

  it('fails a one-hour chunk whose answer is still too large, saying only a higher limit helps', async () => {
    const app = fx.newApp({ ENVDATA_HTTP_MAX_BODY_BYTES: '100' });
    const start = await startBackfill(app, {
      datasets: ['weather'],
      locations: fx.locations.slice(0, 1),
      from: new Date('2024-06-10T00:00:00Z'),
      to: new Date('2024-06-10T02:00:00Z'),
      windowHours: 2,
    });
    const worker = IngestWorker.start(app, { concurrency: 2 });
    try {
      const progress = await waitForRun(app.db, start.runId!);
      expect(progress).toMatchObject({
        status: 'failed',
        failed: 2,
        failures: { RESPONSE_TOO_LARGE: 2 },
      });
    } finally {
      await worker.close();
    }
    const failed = (await runChunks(app.db, start.runId!)).filter((c) => c.status === 'failed');
    expect(failed.map(hours)).toEqual([1, 1]);
    for (const chunk of failed) {
      expect(chunk.error_message).toMatch(/ENVDATA_HTTP_MAX_BODY_BYTES=100\b/);
      expect(chunk.error_message).toMatch(/one hour is the shortest window/);
    }
    expect((await largestArchived(start.runId!)).n).toBe(0);
  });

  it('keeps a worker in bounded memory while the service offers 300 MB per answer, and archives nothing', async () => {
    huge = await startHugeBodyServer();
    const app = fx.newApp({
      ENVDATA_BASE_URL: huge.url,
      ENVDATA_HTTP_MAX_BODY_BYTES: String(MB),
    });
    const start = await startBackfill(app, {
      datasets: ['pollen'],
      locations: fx.locations.slice(0, 1),
      from: new Date('2024-06-12T00:00:00Z'),
      to: new Date('2024-06-12T02:00:00Z'),
      windowHours: 2,
    });
    const worker = IngestWorker.start(app, { concurrency: 2 });
    const { result: progress, growth } = await rssGrowth(() =>
      waitForRun(app.db, start.runId!),
    ).finally(() => worker.close());
    expect(progress).toMatchObject({ status: 'failed', failures: { RESPONSE_TOO_LARGE: 2 } });
    // 2 h → 2 × 1 h: three answers of 300 MB offered, each abandoned just past 1 MB.
    expect(huge.requests()).toBe(3);
    expect(huge.bytesWritten()).toBeLessThan(3 * 32 * MB);
    expect(growth).toBeLessThan(100 * MB);
    expect((await largestArchived(start.runId!)).n).toBe(0);
  });
});
