import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createHousekeeping } from '../../src/housekeeping/create-housekeeping.js';
import { openLanding } from '../../src/ledger/open-landing.js';
import { pruneAnswerBodies } from '../../src/warehouse/prune-answer-bodies.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture(
  {},
  { ENVDATA_ARCHIVE_RAW: 'true', ENVDATA_ARCHIVE_RETENTION_DAYS: '7' },
);

/** Each answer: its window's start, whether its body is still kept. */
async function answers(): Promise<{ answer_id: string; from: Date; kept: boolean; sha: string }[]> {
  const { rows } = await sql<{ answer_id: string; from: Date; kept: boolean; sha: string }>`
    select a.answer_id::text, a.window_from as from, b.body_sha256 is not null as kept,
      encode(a.body_sha256, 'hex') as sha
    from envdata.answer a left join envdata.answer_body b using (body_sha256)
    order by a.answer_id`.execute(fx.app.db);
  return rows;
}

/** Answers of windows starting before `before` as if fetched (and stored) `days` ago. */
async function age(before: string, days: number): Promise<void> {
  await sql`
    with aged as (
      update envdata.answer set fetched_at = now() - make_interval(days => ${days}),
        landed_at = now() - make_interval(days => ${days})
      where window_from < ${new Date(before)} returning body_sha256)
    update envdata.answer_body set stored_at = now() - make_interval(days => ${days})
    where body_sha256 in (select body_sha256 from aged)`.execute(fx.app.db);
}

describe('archive retention (ENVDATA_ARCHIVE_RETENTION_DAYS)', () => {
  it('deletes the bodies whose every answer is older, in batches; answers and their digests stay; a body a landing holds waits', async () => {
    const { runId } = await fx.planBackfill(backfillRange('2024-05-01', '2024-05-09'));
    const worker = IngestWorker.start(fx.app, { concurrency: 4 });
    try {
      expect((await waitForRun(fx.app.db, runId!)).status).toBe('done');
    } finally {
      await worker.close();
    }
    const landed = await answers();
    expect(landed.length).toBeGreaterThanOrEqual(8);
    expect(landed.every((a) => a.kept)).toBe(true);

    await age('2024-05-05', 30);
    // One old body answered again lately: kept, though stored first of all.
    const shared = landed.find((a) => a.from < new Date('2024-05-05'))!;
    await sql`update envdata.answer_body set stored_at = now() - interval '40 days'
      where body_sha256 = decode(${shared.sha}, 'hex')`.execute(fx.app.db);
    await sql`
      insert into envdata.answer (answer_id, chunk_id, run_id, location_id, dataset, window_from,
        window_to, endpoint, http_status, fetched_at, body_sha256)
      select nextval('envdata.answer_id_seq'), chunk_id, run_id, location_id, dataset,
        window_from, window_to, endpoint, http_status, now(), body_sha256
      from envdata.answer where answer_id = ${shared.answer_id}::bigint`.execute(fx.app.db);
    // Another old body is held by a landing that reuses it: left for the next pass.
    const held = landed.find((a) => a.from < new Date('2024-05-05') && a.sha !== shared.sha)!;
    const old = landed.filter((a) => a.from < new Date('2024-05-05'));

    let release!: () => void;
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    const landing = fx.app.db.transaction().execute(async (trx) => {
      const o = await openLanding(trx, [], [Buffer.from(held.sha, 'hex')], [], true);
      expect([...o.storedBodies]).toEqual([held.sha]);
      opened();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isOpen;
    // Two bodies per transaction: the cursor passes over the kept one and the held one.
    const deleted = await pruneAnswerBodies(fx.app.db, 7, 2);
    release();
    await landing;
    expect(deleted).toBe(old.length - 2);
    const after = await answers();
    expect(after.map((a) => a.sha)).toEqual([...landed.map((a) => a.sha), shared.sha]);
    for (const a of after) {
      const keep = a.from >= new Date('2024-05-05') || a.sha === shared.sha || a.sha === held.sha;
      expect(a.kept, `${a.from.toISOString()} kept`).toBe(keep);
    }

    // The next pass (housekeeping, from the setting) deletes the body no longer held; nothing
    // else is past the retention.
    await createHousekeeping(fx.app).pass();
    const final = await answers();
    expect(final.find((a) => a.sha === held.sha)!.kept).toBe(false);
    expect(final.filter((a) => a.kept).length).toBe(
      landed.filter((a) => a.from >= new Date('2024-05-05')).length + 2,
    );
    // BI sees every answer with its digest, the body marked gone.
    const { rows } = await sql<{ n: number; archived: number }>`
      select count(*)::int as n, (count(*) filter (where body_archived))::int as archived
      from analytics.answers`.execute(fx.app.db);
    expect(rows[0]).toEqual({ n: final.length, archived: final.filter((a) => a.kept).length });
  });
});
