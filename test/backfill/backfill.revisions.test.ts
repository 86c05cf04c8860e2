import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { startSync } from '../../src/sync/start-sync.js';
import type { Database } from '../../src/warehouse/schema.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForQueueEmpty } from '../harness/poll-until.js';
import { workRun } from '../harness/work-run.js';

/**
 * Issue 40: the service revises history after the fact (the simulator's `revise` knob); a
 * re-read (the sync's lookback) lands the new values, keeps the old ones as revisions with
 * their validity, and `as_of` returns the warehouse as it stood before and after. Every row
 * traces to an archived answer whose body has the digest it names.
 */
const fx = useBackfillFixture({}, { ENVDATA_ARCHIVE_RAW: 'true' });

/** The backfill ends where the sync's last complete hour ends: both syncs re-read one window. */
const END = new Date('2024-06-06T02:00:00Z');

type Row = Record<string, unknown>;

/** `statement` run as `envdata_bi`, as a BI tool would. */
async function asBi<R>(db: Kysely<Database>, statement: ReturnType<typeof sql<R>>): Promise<R[]> {
  return db.connection().execute(async (conn) => {
    await sql`set role envdata_bi`.execute(conn);
    try {
      return (await statement.execute(conn)).rows;
    } finally {
      await sql`reset role`.execute(conn);
    }
  });
}

const weatherNow = () =>
  asBi<Row>(
    fx.app.db,
    sql`select * from analytics.weather_hourly where observed_at < ${END}
      order by location_id, observed_at`,
  );
const weatherAsOf = (at: Date) =>
  asBi<Row>(
    fx.app.db,
    sql`select * from analytics.weather_hourly_as_of(${at}) where observed_at < ${END}
      order by location_id, observed_at`,
  );
const pollenNow = () =>
  asBi<Row>(
    fx.app.db,
    sql`select * from analytics.pollen_hourly where observed_at < ${END}
      order by location_id, observed_at, pollen_type`,
  );
const pollenAsOf = (at: Date) =>
  asBi<Row>(
    fx.app.db,
    sql`select * from analytics.pollen_hourly_as_of(${at}) where observed_at < ${END}
      order by location_id, observed_at, pollen_type`,
  );

async function dbNow(): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(fx.app.db);
  return rows[0]!.now;
}

async function syncAndWait(app: App): Promise<number> {
  const { runId } = await startSync(app, END);
  const progress = await workRun(app, runId);
  await waitForQueueEmpty(app);
  expect(progress).toMatchObject({ status: 'done', failed: 0 });
  return runId;
}

async function counts(): Promise<{ revisions: number; pollen: number; bodies: number }> {
  const { rows } = await sql<{ revisions: number; pollen: number; bodies: number }>`
    select (select count(*)::int from envdata.weather_hourly_revision) as revisions,
      (select count(*)::int from envdata.pollen_hourly_revision) as pollen,
      (select count(*)::int from envdata.answer_body) as bodies`.execute(fx.app.db);
  return rows[0]!;
}

/** `a` and `b` (rows keyed by location and hour [and type]) differ at these keys. */
function changedKeys(a: readonly Row[], b: readonly Row[], key: (r: Row) => string): string[] {
  const byKey = new Map(b.map((r) => [key(r), JSON.stringify(r)]));
  return a.filter((r) => byKey.get(key(r)) !== JSON.stringify(r)).map(key);
}

const hourKey = (r: Row) => `${String(r.location_id)} ${(r.observed_at as Date).toISOString()}`;
const typeKey = (r: Row) => `${hourKey(r)} ${String(r.pollen_type)}`;

describe('revised history', () => {
  it('a re-read keeps the old values as revisions; as_of returns the warehouse before and after; every row traces to its archived answer', async () => {
    const { progress } = await fx.workBackfill(backfillRange('2024-06-02', END));
    expect(progress).toMatchObject({ status: 'done', failed: 0 });

    // Every row BI reads has a source answer, archived, whose body has the digest it names.
    const sources = await asBi<{
      answer_id: number | null;
      answer_sha256: string | null;
      n: number;
    }>(
      fx.app.db,
      sql`select s.answer_id, s.answer_sha256, count(*)::int as n from (
          select answer_id, answer_sha256, traced_by_window from analytics.weather_hourly_source
          union all
          select answer_id, answer_sha256, traced_by_window from analytics.pollen_hourly_source
          union all
          select answer_id, answer_sha256, traced_by_window from analytics.pollen_species_hourly_source
        ) s where not s.traced_by_window group by 1, 2`,
    );
    const weatherRows = (await weatherNow()).length;
    expect(weatherRows).toBe(2 * (4 * 24 + 2));
    expect(sources.every((s) => s.answer_id !== null && s.answer_sha256 !== null)).toBe(true);
    const { rows: totals } = await sql<{ n: number }>`
      select ((select count(*) from envdata.weather_hourly) + (select count(*) from envdata.pollen_hourly)
        + (select count(*) from envdata.pollen_species_hourly))::int as n`.execute(fx.app.db);
    expect(sources.reduce((n, s) => n + s.n, 0)).toBe(totals[0]!.n);
    for (const { answer_id, answer_sha256 } of sources) {
      const body = await fx.app.db
        .selectFrom('answer as a')
        .innerJoin('answer_body as b', 'b.body_sha256', 'a.body_sha256')
        .select('b.body')
        .where('a.answer_id', '=', answer_id!)
        .executeTakeFirstOrThrow();
      expect(createHash('sha256').update(gunzipSync(body.body)).digest('hex')).toBe(answer_sha256);
    }

    // The service revises a share of the hours it answered; a sync re-reads the last 48 hours.
    const before = { weather: await weatherNow(), pollen: await pollenNow() };
    const t1 = await dbNow();
    expect(await counts()).toMatchObject({ revisions: 0, pollen: 0 });
    fx.simulator.setOptions({ revise: { share: 0.3 } });
    const syncId = await syncAndWait(fx.app);
    const t2 = await dbNow();

    const after = { weather: await weatherNow(), pollen: await pollenNow() };
    const changedWeather = changedKeys(after.weather, before.weather, hourKey);
    const changedPollen = changedKeys(after.pollen, before.pollen, typeKey);
    // Some of the 2 × 48 hours re-read changed, never one outside them.
    expect(changedWeather.length).toBeGreaterThan(0);
    expect(changedWeather.length).toBeLessThan(2 * 48);
    expect(changedPollen.length).toBeGreaterThan(0);
    const reRead = new Date(END.getTime() - 48 * 3_600_000);
    for (const key of changedWeather) expect(new Date(key.split(' ')[1]!) >= reRead).toBe(true);

    // The revision tables hold exactly the old values of the rows that changed, valid from
    // the backfill's landing until the sync's, replaced by the sync's answers.
    const revisions = await asBi<Row>(
      fx.app.db,
      sql`select * from analytics.weather_hourly_revisions order by location_id, observed_at`,
    );
    expect(revisions.map(hourKey)).toEqual(changedWeather.sort());
    const old = new Map(before.weather.map((r) => [hourKey(r), r]));
    for (const r of revisions) {
      const { valid_from, valid_to, answer_id, replaced_by_answer, replaced_by_run, ...values } = r;
      expect(values).toEqual(old.get(hourKey(r)));
      expect(replaced_by_run).toBe(syncId);
      expect(answer_id).not.toBe(replaced_by_answer);
      expect((valid_from as Date) <= t1).toBe(true);
      expect((valid_to as Date) > t1 && (valid_to as Date) <= t2).toBe(true);
    }
    const pollenRevisions = await sql<{ n: number }>`
      select count(*)::int as n from envdata.pollen_hourly_revision`.execute(fx.app.db);
    expect(pollenRevisions.rows[0]!.n).toBe(changedPollen.length);

    // as_of before the re-read: exactly the old values; after it, the new ones.
    expect(await weatherAsOf(t1)).toEqual(before.weather);
    expect(await weatherAsOf(t2)).toEqual(after.weather);
    expect(await pollenAsOf(t1)).toEqual(before.pollen);
    expect(await pollenAsOf(t2)).toEqual(after.pollen);

    // The same answers again: no revision, no new body.
    const kept = await counts();
    await syncAndWait(fx.app);
    expect(await counts()).toEqual(kept);
    expect(await weatherNow()).toEqual(after.weather);
  });
});
