import { readFile, stat, writeFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { partitionRange, pgDigestQuery, exportDataset } from '../../src/export/export-datasets.js';
import { exportParquet } from '../../src/export/export-parquet.js';
import { readExportStatus } from '../../src/export/export-status.js';
import { formatLastExport } from '../../src/cli/format-last-export.js';
import { readManifest } from '../../src/export/export-manifest.js';
import { queryExport } from '../../src/export/query-export.js';
import { verifyExport } from '../../src/export/verify-export.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';
import { hoursBetween, weatherHistoryBody } from '../fixtures/payload-bodies.js';
import { FactWriter } from '../../src/landing/fact-writer.js';

const wh = useTestWarehouse();
const tmp = useTempDir('envdata-export-');
const at = (iso: string) => new Date(`${iso}T00:00:00Z`);

let berlin: number;
let paris: number;

/** The warehouse's own count and digest of a partition, as `export verify` reads them. */
async function warehouseDigest(dataset: string, year: number, month: number) {
  const d = exportDataset(dataset);
  const range = partitionRange(d, { dataset, year, month });
  const where = range ? ` where ${d.time} >= ${range.from} and ${d.time} < ${range.to}` : '';
  const { rows } = await sql<{ rows: string; digest: string }>`${sql.raw(
    pgDigestQuery(d, where),
  )}`.execute(wh.app.db);
  return { rows: Number(rows[0]!.rows), digest: rows[0]!.digest };
}

beforeAll(async () => {
  berlin = (await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' }))
    .locationId;
  paris = (await wh.addLocation({ name: 'Paris', lat: 48.8566, lng: 2.3522, countryCode: 'FR' }))
    .locationId;
  await wh.landWeather(berlin, { from: at('2024-01-30'), to: at('2024-02-03') });
  await wh.landWeather(paris, { from: at('2024-02-10'), to: at('2024-02-12') });
  await refreshDailyRollups(wh.app.db);
});

describe('envdata export parquet', () => {
  it('writes every partition; counts and digests equal the warehouse; verify passes', async () => {
    const dir = tmp.path('full');
    const summary = await exportParquet({ databaseUrl: wh.env.databaseUrl, dir });
    expect(summary.written).toEqual([
      'weather_hourly/2024-01',
      'weather_hourly/2024-02',
      'weather_daily/2024-01',
      'weather_daily/2024-02',
      'locations',
    ]);
    const manifest = (await readManifest(dir))!;
    expect(manifest.complete).toBe(true);
    expect(manifest.position?.snapshot).toBe(summary.snapshot);
    for (const p of manifest.partitions) {
      expect(await warehouseDigest(p.dataset, p.year, p.month)).toEqual({
        rows: p.rows,
        digest: p.digest,
      });
      expect((await stat(`${dir}/${p.file}`)).size).toBe(p.bytes);
    }
    const january = manifest.partitions.find(
      (p) => p.file.includes('year=2024/month=01') && p.dataset === 'weather_hourly',
    )!;
    expect(january).toMatchObject({
      rows: 48,
      from: '2024-01-30T00:00:00Z',
      to: '2024-02-01T00:00:00Z',
    });
    expect(await verifyExport({ databaseUrl: wh.env.databaseUrl, dir })).toMatchObject({
      difference: null,
      partitions: 5,
    });
  });

  it('DuckDB reads every file with the documented types', async () => {
    const dir = tmp.path('full');
    const types = await queryExport(
      dir,
      `SELECT column_name, column_type AS data_type FROM (DESCRIBE weather_hourly)
       WHERE column_name IN ('location_id', 'observed_at', 'temperature_c', 'icon', 'answer_id', 'year', 'month')
       ORDER BY column_name`,
    );
    expect(types.rows).toEqual([
      { column_name: 'answer_id', data_type: 'BIGINT' },
      { column_name: 'icon', data_type: 'VARCHAR' },
      { column_name: 'location_id', data_type: 'INTEGER' },
      { column_name: 'month', data_type: 'INTEGER' },
      { column_name: 'observed_at', data_type: 'TIMESTAMP WITH TIME ZONE' },
      { column_name: 'temperature_c', data_type: 'FLOAT' },
      { column_name: 'year', data_type: 'INTEGER' },
    ]);
    const daily = await queryExport(
      dir,
      `SELECT column_type AS data_type FROM (DESCRIBE weather_daily) WHERE column_name = 'local_date'`,
    );
    expect(daily.rows).toEqual([{ data_type: 'DATE' }]);
    const counts = await queryExport(
      dir,
      `SELECT l.name, count(*)::INTEGER AS hours, min(w.observed_at)::VARCHAR AS first
         FROM weather_hourly w JOIN locations l USING (location_id) GROUP BY l.name ORDER BY l.name`,
    );
    expect(counts.rows).toEqual([
      { name: 'Berlin', hours: 96, first: '2024-01-30 00:00:00+00' },
      { name: 'Paris', hours: 48, first: '2024-02-10 00:00:00+00' },
    ]);
  });

  it('runs the BI examples of docs/export.md over the files', async () => {
    const doc = await readFile(new URL('../../docs/export.md', import.meta.url), 'utf8');
    const block = /The BI examples[\s\S]*?```sql\n([\s\S]*?)```/.exec(doc)![1]!;
    const queries = block
      .split(';')
      .map((q) => q.replace(/^--.*$/gm, '').trim())
      .filter(Boolean);
    expect(queries).toHaveLength(5);
    const dir = tmp.path('full');
    const answers = [];
    for (const q of queries) answers.push((await queryExport(dir, q)).rows.length);
    // Example 6: Berlin's first and last local days are partial (history from 00:00 UTC).
    expect(answers[2]).toBeGreaterThan(0);
  });

  it('a second export rewrites only the partitions of a new month and a revised day', async () => {
    const dir = tmp.path('full');
    const before = (await readManifest(dir))!;
    const again = await exportParquet({ databaseUrl: wh.env.databaseUrl, dir });
    expect(again.written).toEqual([]);
    // A backfill of one new month (Paris, March) and one revised day (Berlin, 2024-01-31).
    await wh.landWeather(paris, { from: at('2024-03-05'), to: at('2024-03-06') });
    const day = { from: at('2024-01-31'), to: at('2024-02-01') };
    const revised = await wh.landingOf(
      'weather',
      berlin,
      day,
      weatherHistoryBody(hoursBetween(day.from.toISOString(), day.to.toISOString()), 7),
      { expected: day },
    );
    await new FactWriter(wh.app.db, { archiveRaw: false }).land([revised]);
    await refreshDailyRollups(wh.app.db);
    const second = await exportParquet({ databaseUrl: wh.env.databaseUrl, dir });
    expect(second.written).toEqual([
      'weather_hourly/2024-01',
      'weather_hourly/2024-03',
      'weather_daily/2024-01',
      // Berlin's revised UTC day ends at 01:00 on its local 1 February: that day is rebuilt too.
      'weather_daily/2024-02',
      'weather_daily/2024-03',
    ]);
    const after = (await readManifest(dir))!;
    const unchanged = (file: string) => [
      before.partitions.find((p) => p.file === file)?.writtenAt,
      after.partitions.find((p) => p.file === file)?.writtenAt,
    ];
    const [was, is] = unchanged('dataset=weather_hourly/year=2024/month=02/part.parquet');
    expect(is).toBe(was);
    expect(await verifyExport({ databaseUrl: wh.env.databaseUrl, dir })).toMatchObject({
      difference: null,
      partitions: 7,
    });
    const { rows } = await sql<{
      n: string;
    }>`select count(*)::text as n from envdata.export_mark`.execute(wh.app.db);
    expect(rows[0]!.n).toBe('0');
    expect(await readExportStatus(wh.app.db)).toMatchObject({
      partitionsWritten: 5,
      partitionsBehind: 0,
      oldestChangeAt: null,
    });
  });

  it('verify exits naming the first partition whose file or warehouse rows differ', async () => {
    const dir = tmp.path('full');
    const file = `${dir}/dataset=weather_hourly/year=2024/month=02/part.parquet`;
    const bytes = await readFile(file);
    // Another valid file in its place: the rows differ.
    await writeFile(
      file,
      await readFile(`${dir}/dataset=weather_hourly/year=2024/month=03/part.parquet`),
    );
    const swapped = await verifyExport({ databaseUrl: wh.env.databaseUrl, dir });
    expect(swapped.difference?.partition).toBe('weather_hourly/2024-02');
    expect(swapped.difference?.reason).toMatch(/^the file holds 24 rows/);
    // Cut in the middle: not Parquet any more.
    await writeFile(file, bytes.subarray(0, bytes.length / 2));
    const cut = await verifyExport({ databaseUrl: wh.env.databaseUrl, dir });
    expect(cut.difference?.partition).toBe('weather_hourly/2024-02');
    expect(cut.difference?.reason).toMatch(/^DuckDB cannot read the file/);
    await writeFile(file, bytes);
    await sql`update envdata.weather_hourly set temperature_c = temperature_c + 1
      where location_id = ${paris} and observed_at = '2024-03-05T03:00:00Z'`.execute(wh.app.db);
    const changed = await verifyExport({ databaseUrl: wh.env.databaseUrl, dir });
    const behind = (await readExportStatus(wh.app.db))!;
    expect(behind.partitionsBehind).toBe(1);
    expect(formatLastExport(behind, new Date(+behind.oldestChangeAt! + 7_200_000))).toMatch(
      /; 1 partition\(s\) changed since, the oldest change 2 h 0 min ago: `envdata export parquet` writes them$/,
    );
    expect(changed.difference?.partition).toBe('weather_hourly/2024-03');
    expect(changed.difference?.reason).toMatch(/^the warehouse holds 24 rows/);
    await exportParquet({ databaseUrl: wh.env.databaseUrl, dir });
    expect((await verifyExport({ databaseUrl: wh.env.databaseUrl, dir })).difference).toBeNull();
  });
});
