import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factsOfBody } from '../../src/datasets/facts-of-body.js';
import { NO_FACTS } from '../../src/warehouse/fact-table.js';
import type { Database } from '../../src/warehouse/schema.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';
import type { ChunkLanding } from '../../src/ledger/landing-decision.js';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { WireDialect } from '../../src/warehouse/wire/index.js';
import { upsertFacts } from '../harness/upsert-facts.js';
import type { FactTableSpec } from '../../src/warehouse/fact-table-spec.js';
import type { FactRow } from '../../src/warehouse/fact-rows.js';
import { hoursBetween, pollenHistoryBody, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let berlin: number;
let brisbane: number;

beforeAll(async () => {
  berlin = (await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' }))
    .locationId;
  brisbane = (
    await wh.addLocation({ name: 'Brisbane', lat: -27.4698, lng: 153.0251, countryCode: 'AU' })
  ).locationId;
});

/** A complete weather answer for a newly planned chunk, normalized as the job hands it over. */
function weatherLanding(
  locationId: number,
  from: string,
  to: string,
  body?: string,
): Promise<ChunkLanding> {
  const window = { from: new Date(from), to: new Date(to) };
  return wh.landingOf(
    'weather',
    locationId,
    window,
    body ?? weatherHistoryBody(hoursBetween(from, to)),
  );
}

/**
 * A second connection pool on the test database that notes every statement it runs, begin,
 * rollback and commit included (closed after the file).
 */
function withStatementLog(): { db: Kysely<Database>; statements: string[] } {
  const statements: string[] = [];
  const config: pg.PoolConfig = {
    connectionString: wh.env.databaseUrl,
    max: 2,
    options: '-c search_path=envdata,public -c timezone=UTC',
  };
  const pool = new pg.Pool(config);
  // `destroy()` resolves once its connections have said goodbye, not once the server has read it:
  // the database's drop after the file can still reach one as 57P01, which the pool emits as an
  // error of its own (uncaught without a listener, failing the run after every test passed).
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({
    dialect: new WireDialect({ pool, prepare: true }),
    log: (event) => {
      statements.push(event.query.sql.replace(/\s+/g, ' ').trim());
    },
  });
  logged.push(db);
  return { db, statements };
}

const logged: Kysely<Database>[] = [];
afterAll(async () => {
  await Promise.all(logged.map((db) => db.destroy()));
});

function writeContext() {
  return { species: new SpeciesIds() };
}

async function count(table: string, locationId: number): Promise<number> {
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::int as n from ${sql.table(table)} where location_id = ${locationId}`.execute(
    wh.app.db,
  );
  return rows[0]!.n;
}

describe('FactWriter.land', () => {
  it('lands a weather chunk, archives its raw payload and marks it done, in one go', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: true });
    const landing = await weatherLanding(berlin, '2023-01-01T00:00:00Z', '2023-01-03T00:00:00Z');
    const summary = await writer.land([landing]);
    expect(summary.rowsWritten).toBe(48);
    expect(summary.results[0]).toMatchObject({ rows: 48, quarantined: 0 });
    const chunk = await wh.app.db
      .selectFrom('chunk')
      .selectAll()
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(chunk).toMatchObject({ status: 'done', outcome: 'rows', rows_landed: 48, calls: 1 });
    const raw = await wh.app.db
      .selectFrom('raw_payload')
      .selectAll()
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(gunzipSync(raw.body).toString('utf8')).toBe(landing.rawBody);
    const first = await sql<{ temperature_c: number; humidity_pct: number; icon: string }>`
      select temperature_c, humidity_pct, icon from analytics.weather_hourly
      where location_id = ${berlin} and observed_at = '2023-01-01T05:00:00Z'`.execute(wh.app.db);
    expect(first.rows[0]).toMatchObject({ temperature_c: 7.5, icon: 'cloudy' });
    expect(first.rows[0]!.humidity_pct).toBeCloseTo(70, 4);
  });

  it("keeps every answer, each body once by its SHA-256: the chunk's newest answer is what raw_payload shows", async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: true });
    const from = '2023-04-01T00:00:00Z';
    const to = '2023-04-03T00:00:00Z';
    const landing = await weatherLanding(berlin, from, to);
    const archived = () =>
      sql<{ body: Buffer; body_sha256: Buffer; fetched_at: Date; dirty: number }>`
        select body, body_sha256, fetched_at,
          (select count(*)::int from envdata.rollup_dirty where location_id = ${berlin}
            and from_at = ${new Date(from)}) as dirty
        from envdata.raw_payload where chunk_id = ${landing.chunkId}`
        .execute(wh.app.db)
        .then((r) => r.rows[0]!);
    await writer.land([landing]);
    const first = await archived();
    expect(first.body_sha256.toString('hex')).toBe(
      createHash('sha256').update(landing.rawBody!).digest('hex'),
    );

    // The same answer fetched again later: identical facts, a body the archive has: nothing is
    // written, no answer added, no rollup day dirtied.
    const later = new Date(landing.startedAt.getTime() + 60_000);
    await writer.land([{ ...landing, startedAt: later }]);
    const again = await archived();
    expect(again.body.equals(first.body)).toBe(true);
    expect(again.fetched_at).toEqual(first.fetched_at);
    expect(again.dirty).toBe(first.dirty);
    const kept = () =>
      sql<{ answers: number; bodies: number }>`
        select (select count(*)::int from envdata.answer where chunk_id = ${landing.chunkId}) as answers,
          (select count(*)::int from envdata.answer_body b where exists (select 1
            from envdata.answer a where a.chunk_id = ${landing.chunkId}
              and a.body_sha256 = b.body_sha256)) as bodies`
        .execute(wh.app.db)
        .then((r) => r.rows[0]!);
    expect(await kept()).toEqual({ answers: 1, bodies: 1 });

    // A different answer for the chunk replaces body and digest.
    const changed = landing.rawBody!.replace('"temperature"', ' "temperature"');
    expect(changed).not.toBe(landing.rawBody);
    await writer.land([{ ...landing, rawBody: changed }]);
    const replaced = await archived();
    expect(gunzipSync(replaced.body).toString('utf8')).toBe(changed);
    expect(replaced.body_sha256.toString('hex')).toBe(
      createHash('sha256').update(changed).digest('hex'),
    );
    // A body the archive never had is an answer, though no value changed; the earlier stays.
    expect(await kept()).toEqual({ answers: 2, bodies: 2 });
  });

  it('re-landing identical rows changes nothing: same count, same values, no row rewritten', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: false });
    const landing = await weatherLanding(berlin, '2023-02-01T00:00:00Z', '2023-02-03T00:00:00Z');
    await writer.land([landing]);
    const snapshot = async () =>
      (
        await sql<{ observed_at: Date; xmin: string; temperature_c: number }>`
          select observed_at, xmin::text, temperature_c from envdata.weather_hourly
          where location_id = ${berlin} and observed_at >= '2023-02-01' and observed_at < '2023-02-03'
          order by observed_at`.execute(wh.app.db)
      ).rows;
    const before = await snapshot();
    const again = await new FactWriter(wh.app.db, { archiveRaw: false }).land([landing]);
    expect(again.rowsWritten).toBe(0);
    expect(await snapshot()).toEqual(before);
  });

  it('lands hours the ledger never saw with one binary COPY, without reading what is stored', async () => {
    const { db, statements } = withStatementLog();
    const landing = await weatherLanding(berlin, '2023-05-01T00:00:00Z', '2023-05-03T00:00:00Z');

    const summary = await new FactWriter(db, { archiveRaw: true }).land([landing]);

    expect(summary.rowsWritten).toBe(48);
    const facts = statements.filter((s) => /weather_hourly/.test(s));
    expect(facts).toEqual([
      expect.stringMatching(
        /^copy "envdata"."weather_hourly" \(.*\) from stdin \(format binary\)$/,
      ),
    ]);
    expect(statements.some((s) => s.startsWith('savepoint'))).toBe(false);
    expect(await count('envdata.weather_hourly', berlin)).toBeGreaterThanOrEqual(48);
  });

  it('rows stored that the ledger never recorded: the COPY fails, the landing runs again with the probe and lands', async () => {
    const from = '2023-06-01T00:00:00Z';
    const to = '2023-06-03T00:00:00Z';
    const landing = await weatherLanding(berlin, from, to);
    // Facts stored behind the ledger's back (a concurrent landing, a restored table): some of
    // the hours, one of them with another value.
    const [table] = landing.facts.tables;
    const stored = table!.rows
      .slice(0, 10)
      .map((r, i) => (i === 4 ? { ...r, temperatureC: -40 } : r));
    await wh.app.db
      .transaction()
      .execute((trx) =>
        upsertFacts(trx, table!.table.spec(writeContext()) as FactTableSpec<FactRow>, [
          { locationId: berlin, rows: stored },
        ]),
      );
    const { db, statements } = withStatementLog();

    const summary = await new FactWriter(db, { archiveRaw: true }).land([landing]);

    // 38 new rows and the one whose value differed; the 9 identical rows are left alone.
    expect(summary.rowsWritten).toBe(38 + 1);
    expect(summary.results[0]).toMatchObject({ state: 'done', rows: 48 });
    expect(statements.filter((s) => s === 'rollback')).toHaveLength(1);
    const { rows } = await sql<{ n: number; cold: number }>`
      select count(*)::int as n, count(*) filter (where temperature_c = -40)::int as cold
      from envdata.weather_hourly
      where location_id = ${berlin} and observed_at >= ${from} and observed_at < ${to}`.execute(
      wh.app.db,
    );
    expect(rows[0]).toEqual({ n: 48, cold: 0 });
    const chunk = await wh.app.db
      .selectFrom('chunk')
      .select(['status', 'rows_landed'])
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(chunk).toEqual({ status: 'done', rows_landed: 48 });
    const archived = await wh.app.db
      .selectFrom('raw_payload')
      .select('body')
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(gunzipSync(archived.body).toString('utf8')).toBe(landing.rawBody);
  });

  it('stage() compresses a body before the landing; land() archives exactly that body', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: true });
    const landing = await weatherLanding(berlin, '2023-07-01T00:00:00Z', '2023-07-03T00:00:00Z');

    const staged = await writer.stage(landing);

    expect(staged.answer?.digest.toString('hex')).toBe(
      createHash('sha256').update(landing.rawBody!).digest('hex'),
    );
    expect(gunzipSync(staged.answer!.gzipped!).toString('utf8')).toBe(landing.rawBody);
    expect(await writer.stage(staged)).toBe(staged);
    // Without the archive the answer is still kept, by its digest, without its body.
    const bodiless = await new FactWriter(wh.app.db, { archiveRaw: false }).stage(landing);
    expect(bodiless.answer?.gzipped).toBeUndefined();
    expect(bodiless.answer?.digest.equals(staged.answer!.digest)).toBe(true);
    expect(bodiless.answer?.answerId).not.toBe(staged.answer?.answerId);
    await writer.land([staged]);
    const archived = await wh.app.db
      .selectFrom('raw_payload')
      .select(['body', 'body_bytes'])
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(archived.body.equals(staged.answer!.gzipped!)).toBe(true);
    expect(archived.body_bytes).toBe(Buffer.byteLength(landing.rawBody!));
  });

  it("a late copy of a done chunk's landing writes the log only; one that brings new hours still cuts holes", async () => {
    const from = '2023-08-01T00:00:00Z';
    const to = '2023-08-03T00:00:00Z';
    const window = { from: new Date(from), to: new Date(to) };
    // The answer lacks hours 10–11: the chunk is done with a hole of 2 hours.
    const hours = hoursBetween(from, to);
    const gappy = weatherHistoryBody(hours.filter((_, i) => i !== 10 && i !== 11));
    const landing = await wh.landingOf('weather', brisbane, window, gappy, { expected: window });
    const writer = new FactWriter(wh.app.db, { archiveRaw: true });
    expect((await writer.land([landing])).results[0]).toMatchObject({
      state: 'done',
      missingHours: 2,
    });
    const ledger = async () => ({
      holes: (
        await sql<{ hours: string; xmin: string }>`
          select hours::text, xmin::text from envdata.coverage_hole
          where location_id = ${brisbane} and dataset = 'weather' order by hours`.execute(wh.app.db)
      ).rows,
      chunk: (
        await sql<{ xmin: string; status: string }>`
          select xmin::text, status::text from envdata.chunk where chunk_id = ${landing.chunkId}`.execute(
          wh.app.db,
        )
      ).rows,
      coverage: (
        await sql<{ xmin: string; landed: string }>`
          select xmin::text, landed::text from envdata.coverage
          where location_id = ${brisbane} and dataset = 'weather'`.execute(wh.app.db)
      ).rows,
    });
    const before = await ledger();
    expect(before.holes.map((h) => h.hours)).toEqual([
      '["2023-08-01 10:00:00+00","2023-08-01 12:00:00+00")',
    ]);
    const { db, statements } = withStatementLog();

    await new FactWriter(db, { archiveRaw: true }).land([landing]);

    expect(await ledger()).toEqual(before);
    expect(statements.some((s) => /coverage_hole|update envdata.chunk/.test(s))).toBe(false);

    // A later answer of the same done chunk that has hour 10 lands it and cuts the hole.
    const fuller = weatherHistoryBody(hours.filter((_, i) => i !== 11));
    await writer.land([
      { ...landing, facts: factsOfBody('weather', fuller, window), rawBody: fuller },
    ]);
    const after = await ledger();
    expect(after.holes.map((h) => h.hours)).toEqual([
      '["2023-08-01 11:00:00+00","2023-08-01 12:00:00+00")',
    ]);
    expect(after.chunk).toEqual(before.chunk);
  });

  it('a done chunk whose coverage row is gone is not settled: landing it again records its hours', async () => {
    const landing = await weatherLanding(berlin, '2023-09-01T00:00:00Z', '2023-09-03T00:00:00Z');
    const writer = new FactWriter(wh.app.db, { archiveRaw: false });
    await writer.land([landing]);
    await sql`delete from envdata.coverage where location_id = ${berlin} and dataset = 'weather'`.execute(
      wh.app.db,
    );

    await writer.land([landing]);

    const { rows } = await sql<{ covered: boolean }>`
      select landed @> tstzrange('2023-09-01T00:00:00Z', '2023-09-03T00:00:00Z') as covered
      from envdata.coverage where location_id = ${berlin} and dataset = 'weather'`.execute(
      wh.app.db,
    );
    expect(rows).toEqual([{ covered: true }]);
  });

  it('updates only the rows whose values changed, and marks their days dirty for the rollups', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: false });
    const from = '2023-03-01T00:00:00Z';
    const to = '2023-03-02T00:00:00Z';
    const landing = await weatherLanding(berlin, from, to);
    const dirty = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from envdata.rollup_dirty
          where location_id = ${berlin} and from_at = ${new Date(from)}`.execute(wh.app.db)
      ).rows[0]!.n;
    await writer.land([landing]);
    const marked = await dirty();
    expect(marked).toBeGreaterThan(0);
    // The chunk is done and covered: landing it again is settled. Identical, it marks nothing.
    expect((await writer.land([landing])).rowsWritten).toBe(0);
    expect(await dirty()).toBe(marked);
    const hours = hoursBetween(from, to);
    const changed = JSON.parse(weatherHistoryBody(hours)) as {
      data: { history: { temperature: number }[] };
    };
    changed.data.history[3]!.temperature = -3.5;
    const body = JSON.stringify(changed);
    const second = await writer.land([
      { ...landing, facts: factsOfBody('weather', body, landing.window), rawBody: body },
    ]);
    expect(second.rowsWritten).toBe(1);
    expect(await dirty()).toBe(marked + 1);
  });

  it('lands pollen by type and by species, Others included, species stored once', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: false });
    const from = '2024-10-01T00:00:00Z';
    const to = '2024-10-02T00:00:00Z';
    const window = { from: new Date(from), to: new Date(to) };
    const summary = await writer.land([
      await wh.landingOf('pollen', brisbane, window, pollenHistoryBody(hoursBetween(from, to))),
    ]);
    expect(summary.results[0]!.rows).toBe(24 * 3 + 24 * 5);
    expect(await count('envdata.pollen_hourly', brisbane)).toBe(72);
    expect(await count('envdata.pollen_species_hourly', brisbane)).toBe(120);
    const species = await sql<{ category: string; species: string }>`
      select distinct category, species from analytics.pollen_species_hourly
      where location_id = ${brisbane} order by 1, 2`.execute(wh.app.db);
    expect(species.rows).toEqual([
      { category: 'grass', species: 'Grass / Poaceae' },
      { category: 'other', species: 'Others' },
      { category: 'tree', species: 'Birch' },
      { category: 'tree', species: 'Poplar / Cottonwood' },
      { category: 'weed', species: 'Nettle' },
    ]);
  });

  it('quarantines a rejected record with its reason while the rest of the chunk lands, once', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: false });
    const from = '2023-04-01T00:00:00Z';
    const to = '2023-04-01T03:00:00Z';
    const body = JSON.parse(weatherHistoryBody(hoursBetween(from, to))) as {
      data: { history: Record<string, unknown>[] };
    };
    body.data.history[1]!.windSpeed = -12;
    const landing = await weatherLanding(berlin, from, to, JSON.stringify(body));
    await writer.land([landing]);
    await writer.land([landing]);
    const q = await wh.app.db
      .selectFrom('quarantine')
      .selectAll()
      .where('chunk_id', '=', landing.chunkId)
      .execute();
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({ record_index: 1, source: 'weather_history' });
    expect(q[0]!.reason).toMatch(/windSpeed/);
    const chunk = await wh.app.db
      .selectFrom('chunk')
      .selectAll()
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(chunk).toMatchObject({ status: 'done', rows_landed: 2, rows_quarantined: 1 });
  });

  it('is all-or-nothing: a failure mid-chunk leaves neither rows nor a done mark', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: true });
    const landing = await weatherLanding(brisbane, '2022-06-01T00:00:00Z', '2022-06-03T00:00:00Z');
    // A real failure inside the transaction, after the facts were written: the ledger update throws.
    await sql`
      create function envdata.fail_ledger() returns trigger language plpgsql as $$
      begin raise exception 'ledger unavailable'; end $$;
      create trigger fail_ledger before update on envdata.chunk
        for each row execute function envdata.fail_ledger();`.execute(wh.app.db);
    try {
      await expect(writer.land([landing])).rejects.toThrow(/ledger unavailable/);
    } finally {
      await sql`drop trigger fail_ledger on envdata.chunk; drop function envdata.fail_ledger();`.execute(
        wh.app.db,
      );
    }
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.weather_hourly
      where location_id = ${brisbane} and observed_at >= '2022-06-01' and observed_at < '2022-06-03'`.execute(
      wh.app.db,
    );
    expect(rows[0]!.n).toBe(0);
    const chunk = await wh.app.db
      .selectFrom('chunk')
      .selectAll()
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(chunk.status).toBe('queued');
    expect(
      await wh.app.db
        .selectFrom('raw_payload')
        .select('chunk_id')
        .where('chunk_id', '=', landing.chunkId)
        .execute(),
    ).toEqual([]);
    // The same landing succeeds once the cause is gone.
    await writer.land([landing]);
    expect(
      (
        await wh.app.db
          .selectFrom('chunk')
          .select('status')
          .where('chunk_id', '=', landing.chunkId)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('done');
  });

  it('creates partitions ahead of the data for 1990, 2016 and 2040', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: false });
    await writer.land([
      await weatherLanding(berlin, '1990-01-01T00:00:00Z', '1990-01-01T02:00:00Z'),
      await weatherLanding(berlin, '2040-12-31T22:00:00Z', '2041-01-01T00:00:00Z'),
    ]);
    const window = { from: new Date('2040-06-01T00:00:00Z'), to: new Date('2040-06-01T02:00:00Z') };
    await writer.land([
      await wh.landingOf(
        'pollen',
        berlin,
        window,
        pollenHistoryBody(hoursBetween('2040-06-01T00:00:00Z', '2040-06-01T02:00:00Z')),
      ),
    ]);
    const { rows } = await sql<{ relname: string }>`
      select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where c.relname in ('weather_hourly_y1990', 'weather_hourly_y2016', 'weather_hourly_y2040',
        'pollen_hourly_y2016', 'pollen_hourly_y2040', 'pollen_species_hourly_y2040')
      order by 1`.execute(wh.app.db);
    expect(rows.map((r) => r.relname)).toEqual([
      'pollen_hourly_y2016',
      'pollen_hourly_y2040',
      'pollen_species_hourly_y2040',
      'weather_hourly_y1990',
      'weather_hourly_y2016',
      'weather_hourly_y2040',
    ]);
    const partitions = await sql<{ n: number }>`
      select count(*)::int as n from pg_inherits where inhparent = 'envdata.weather_hourly'::regclass`.execute(
      wh.app.db,
    );
    expect(partitions.rows[0]!.n).toBeLessThan(100);
  });

  it('keeps the rows of a trimmed (206) payload without marking the chunk done', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: false });
    const landing = await weatherLanding(
      brisbane,
      '2021-01-01T00:00:00Z',
      '2021-01-03T00:00:00Z',
      weatherHistoryBody(hoursBetween('2021-01-01T00:00:00Z', '2021-01-01T10:00:00Z')),
    );
    await writer.land([{ ...landing, complete: false, httpStatus: 206 }]);
    const chunk = await wh.app.db
      .selectFrom('chunk')
      .selectAll()
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(chunk).toMatchObject({ status: 'queued', error_code: 'PARTIAL', rows_landed: 10 });
  });

  it('marks a no-data chunk done with zero rows', async () => {
    const writer = new FactWriter(wh.app.db, { archiveRaw: true });
    const landing = await weatherLanding(brisbane, '1989-12-30T00:00:00Z', '1990-01-01T00:00:00Z');
    await writer.land([{ ...landing, facts: NO_FACTS, rawBody: undefined, outcome: 'no_data' }]);
    const chunk = await wh.app.db
      .selectFrom('chunk')
      .selectAll()
      .where('chunk_id', '=', landing.chunkId)
      .executeTakeFirstOrThrow();
    expect(chunk).toMatchObject({ status: 'done', outcome: 'no_data', rows_landed: 0 });
  });
});
