/**
 * `npm run bench:export`: fills a throwaway warehouse with hourly weather server-side (as
 * bench:warehouse does), then measures `envdata export parquet` (docs/export.md) against two
 * ceilings of the same rows measured in the same run: Postgres's `COPY … TO STDOUT` (the read
 * ceiling) and DuckDB writing the same rows to Parquet from memory (the engine's own). Target:
 * the export's rows/s ≥ 70 % of the smaller. Also: file bytes per row against the warehouse's
 * (table and indexes), `export verify`'s time, five BI queries over the files (DuckDB) against
 * the same in Postgres (median, p95 of --repeat runs), and the export's peak RSS at two sizes
 * (the full history, then its later half): flat when the export streams.
 *
 * A measurement, not a test: it exits 0 whether the target is met or not.
 *
 * @example npm run bench:export -- --rows 5000000
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { openDuckSession, duckString } from '../src/export/duckdb-session.js';
import { exportDataset, partitionSelect } from '../src/export/export-datasets.js';
import { PARQUET_OPTIONS } from '../src/export/export-parquet.js';
import { exportViews } from '../src/export/query-export.js';
import { verifyExport } from '../src/export/verify-export.js';
import { refreshDailyRollups } from '../src/warehouse/refresh-daily-rollups.js';
import { CopyOut } from '../src/warehouse/wire/index.js';
import { benchOptions, DEFAULT_SERVER_URL, runInBenchDatabase } from './lib/bench-database.js';
import { wholeNumberFlag } from './lib/bench-flags.js';
import { fillWarehouse, markAllDirty } from './lib/warehouse-fill.js';
import { addWarehouseLocations, pickWarehouseCities } from './lib/warehouse-locations.js';

const HOURS_A_YEAR = 8_760;
const LAST_YEAR = 2024;
const CHILD = fileURLToPath(new URL('./lib/export-child.ts', import.meta.url));

function readOptions() {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '50000000' },
      years: { type: 'string', default: '2' },
      repeat: { type: 'string', default: '7' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(`usage: npm run bench:export -- [options]
  --rows N     hourly weather rows to fill, about (default 50000000)
  --years N    UTC years of history they span, ending ${LAST_YEAR} (default 2); the locations
               are rows / (years × 8760)
  --repeat N   runs of each BI query on each side (default 7)
  --keep       keep the database afterwards and print its URL
Server: BENCH_DATABASE_URL (a superuser URL), default ${DEFAULT_SERVER_URL}`);
    process.exit(0);
  }
  const years = wholeNumberFlag('years', values.years, 30);
  const rows = wholeNumberFlag('rows', values.rows, 3_000_000_000);
  return {
    years,
    locations: Math.max(1, Math.ceil(rows / (years * HOURS_A_YEAR))),
    repeat: wholeNumberFlag('repeat', values.repeat, 100),
    keep: values.keep,
  };
}

/** Runs the export in a child process; its summary, seconds and peak RSS. */
function exportInChild(databaseUrl: string, dir: string) {
  return new Promise<{
    rows: number;
    bytes: number;
    partitions: number;
    seconds: number;
    maxRssKiB: number;
    phases: { read: number; write: number; digest: number; digestWait: number };
  }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...process.env, DATABASE_URL: databaseUrl, EXPORT_DIR: dir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.once('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)!))
        : reject(new Error(`export child exited ${code}`)),
    );
  });
}

const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const rate = (rows: number, seconds: number) => Math.round(rows / seconds).toLocaleString('en');

/** Five BI queries of docs/warehouse-queries.md's kind, as Postgres and DuckDB spell them. */
function biQueries(city: string, year: number) {
  return [
    {
      name: 'ex. 8: monthly rain and wet days, 2 locations, 3 months (weather_daily)',
      pg: `select l.name, date_trunc('month', d.local_date)::date as month, round(sum(d.precip_total_mm)::numeric, 1) as rain_mm, count(*) filter (where d.precip_total_mm >= 1) as wet_days
           from envdata.weather_daily_rollup d join envdata.location l using (location_id)
           where l.name in ('${city}') and d.local_date >= date '${year}-09-01' and d.local_date < date '${year}-12-01' group by 1, 2 order by 1, 2`,
      duck: `select l.name, date_trunc('month', d.local_date)::DATE as month, round(sum(d.precip_total_mm), 1) as rain_mm, count(*) filter (where d.precip_total_mm >= 1) as wet_days
           from weather_daily d join locations l using (location_id)
           where l.name in ('${city}') and d.local_date >= DATE '${year}-09-01' and d.local_date < DATE '${year}-12-01' group by all order by 1, 2`,
    },
    {
      name: 'ex. 6: local days not 24 hours long, one location (weather_daily)',
      pg: `select d.local_date, d.hours from envdata.weather_daily_rollup d join envdata.location l using (location_id) where l.name = '${city}' and d.hours <> 24 order by 1`,
      duck: `select d.local_date, d.hours from weather_daily d join locations l using (location_id) where l.name = '${city}' and d.hours <> 24 order by 1`,
    },
    {
      name: "a year of one location's hourly weather",
      pg: `select w.observed_at, w.temperature_c, w.precip_intensity_mm_h from envdata.weather_hourly w join envdata.location l using (location_id) where l.name = '${city}' and w.observed_at >= timestamptz '${year}-01-01 00:00:00+00' and w.observed_at < timestamptz '${year + 1}-01-01 00:00:00+00' order by 1`,
      duck: `select w.observed_at, w.temperature_c, w.precip_intensity_mm_h from weather_hourly w join locations l using (location_id) where l.name = '${city}' and w.year = ${year} order by 1`,
    },
    {
      name: 'Grafana-style series: 30 days of hourly temperature, all locations',
      pg: `select w.observed_at, l.name, w.temperature_c from envdata.weather_hourly w join envdata.location l using (location_id) where w.observed_at >= timestamptz '${year}-06-01 00:00:00+00' and w.observed_at < timestamptz '${year}-07-01 00:00:00+00' order by 1`,
      duck: `select w.observed_at, l.name, w.temperature_c from weather_hourly w join locations l using (location_id) where w.year = ${year} and w.month = 6 order by 1`,
    },
    {
      name: 'monthly mean temperature per location, whole history (a full scan)',
      pg: `select location_id, date_trunc('month', observed_at at time zone 'UTC') as m, avg(temperature_c) from envdata.weather_hourly group by 1, 2`,
      duck: `select location_id, year, month, avg(temperature_c) from weather_hourly group by all`,
    },
  ];
}

async function main(): Promise<void> {
  const options = benchOptions('bench:export', readOptions);
  if (!options) return;
  const server = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  await runInBenchDatabase(server, options.keep, async ({ bench, app, stopIfInterrupted }) => {
    const db = app.db;
    const locations = await addWarehouseLocations(db, pickWarehouseCities(options.locations));
    console.log(
      `filling ${options.years} year(s) of hourly weather for ${locations.length} locations`,
    );
    const fill = await fillWarehouse(
      db,
      {
        lastYear: LAST_YEAR,
        weatherYears: options.years,
        pollenYears: 0,
        forecastNights: 0,
        forecastProducts: [],
        facts: true,
      },
      (what) => {
        stopIfInterrupted();
        console.log(`filling ${what}`);
      },
    );
    const weatherRows = fill.facts.weather_hourly.rows;
    console.log('refreshing the daily rollups');
    await markAllDirty(db);
    await refreshDailyRollups(db);
    await sql`vacuum analyze`.execute(db);
    stopIfInterrupted();

    const dir = await mkdtemp(path.join(tmpdir(), 'envdata-bench-export-'));
    try {
      // 1. The read ceiling: COPY … TO STDOUT of the same rows, month by month as the export.
      const months: { year: number; month: number }[] = [];
      for (let y = LAST_YEAR + 1 - options.years; y <= LAST_YEAR; y++) {
        for (let m = 1; m <= 12; m++) months.push({ year: y, month: m });
      }
      const weather = exportDataset('weather_hourly');
      const client = new pg.Client({ connectionString: bench.url });
      await client.connect();
      await client.query("set timezone = 'UTC'");
      let copyBytes = 0;
      const copyMonth = async (statement: Readable) => {
        await pipeline(
          client.query(statement as Readable & pg.Submittable),
          new Writable({
            write(chunk: Buffer, _e, done) {
              copyBytes += chunk.length;
              done();
            },
          }),
        );
      };
      const monthSql = (m: { year: number; month: number }) =>
        `COPY (${partitionSelect(weather, { dataset: weather.name, ...m })}) TO STDOUT (FORMAT csv)`;
      // What receiving a month costs this process, read by pg-copy-streams and by envdata's
      // CopyOut (the export's): CPU µs per row, the same month once each, alternating, twice.
      const received = { streams: 0, copyOut: 0, rows: 0 };
      const lastMonth = months[months.length - 1]!;
      for (let i = 0; i < 2; i += 1) {
        const m = lastMonth;
        for (const reader of ['streams', 'copyOut'] as const) {
          const cpu0 = process.cpuUsage();
          await copyMonth(reader === 'streams' ? copyTo(monthSql(m)) : new CopyOut(monthSql(m)));
          const cpu = process.cpuUsage(cpu0);
          received[reader] += cpu.user + cpu.system;
        }
      }
      const { rows: monthRows } = await client.query<{ n: number }>(
        `select count(*)::int as n from (${partitionSelect(weather, { dataset: weather.name, ...lastMonth })}) x`,
      );
      received.rows = 2 * monthRows[0]!.n;
      copyBytes = 0;
      let t0 = performance.now();
      for (const m of months) await copyMonth(new CopyOut(monthSql(m)));
      const copySeconds = (performance.now() - t0) / 1000;
      const { rows: size } = await client.query<{ bytes: string }>(
        `select sum(pg_total_relation_size(c.oid))::text as bytes from pg_inherits i join pg_class c on c.oid = i.inhrelid
          where i.inhparent = 'envdata.weather_hourly'::regclass`,
      );
      await client.end();
      stopIfInterrupted();

      // 2. The export, full, in a process of its own (peak RSS).
      console.log('exporting');
      const full = await exportInChild(bench.url, dir);
      const weatherFiles = await (async () => {
        const duck = await openDuckSession();
        try {
          const [row] = await duck.rows(
            `select count(*)::BIGINT::VARCHAR as n from read_parquet(${duckString(path.join(dir, 'dataset=weather_hourly', '**', '*.parquet'))})`,
          );
          return Number(row!.n);
        } finally {
          duck.close();
        }
      })();
      // Bytes of the weather files alone.
      const { stdout: du } = await new Promise<{ stdout: string }>((resolve) => {
        const child = spawn('du', ['-sb', path.join(dir, 'dataset=weather_hourly')]);
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.once('close', () => resolve({ stdout: out }));
      });
      const weatherBytes = Number(du.split('\t')[0]);

      // 3. The engine's ceiling: DuckDB writing the same rows to Parquet from memory.
      const duck = await openDuckSession({ memoryLimit: '4GB' });
      await duck.run(
        `create table w as select * exclude (year, month) from read_parquet(${duckString(path.join(dir, 'dataset=weather_hourly', '**', '*.parquet'))}, hive_partitioning = true)`,
      );
      const ceilingDir = path.join(dir, 'ceiling');
      t0 = performance.now();
      await duck.run(
        `COPY (select *, year(observed_at) as year, month(observed_at) as month from w) TO ${duckString(ceilingDir)}
          (${PARQUET_OPTIONS}, PARTITION_BY (year, month))`,
      );
      const duckSeconds = (performance.now() - t0) / 1000;
      await duck.run('drop table w');
      duck.close();
      await rm(ceilingDir, { recursive: true, force: true });
      stopIfInterrupted();

      // 4. verify.
      t0 = performance.now();
      const verified = await verifyExport({ databaseUrl: bench.url, dir });
      const verifySeconds = (performance.now() - t0) / 1000;

      // 5. BI queries over the files and in Postgres.
      const city = locations[0]!.name.replace(/'/g, "''");
      const queries = biQueries(city, LAST_YEAR);
      const files = await openDuckSession();
      for (const view of await exportViews(dir)) await files.run(view);
      const pgc = new pg.Client({ connectionString: bench.url });
      await pgc.connect();
      const results: { name: string; pg: number[]; duck: number[] }[] = [];
      for (const q of queries) {
        const r = { name: q.name, pg: [] as number[], duck: [] as number[] };
        for (let i = 0; i < options.repeat; i++) {
          let t = performance.now();
          await pgc.query(q.pg);
          r.pg.push(performance.now() - t);
          t = performance.now();
          await files.rows(q.duck);
          r.duck.push(performance.now() - t);
        }
        r.pg.sort((a, b) => a - b);
        r.duck.sort((a, b) => a - b);
        results.push(r);
      }
      await pgc.end();
      files.close();

      // 6. A shorter history, exported again: peak RSS at a second size. The warehouse grows by
      // months (same partition size, more partitions); the export's memory must not.
      await sql`delete from envdata.weather_hourly
        where observed_at < ${new Date(Date.UTC(LAST_YEAR + 1 - Math.max(1, Math.floor(options.years / 2)), 0, 1))}`.execute(
        db,
      );
      const halfDir = path.join(dir, 'half');
      const small = await exportInChild(bench.url, halfDir);

      const exportRate = weatherRows / full.seconds;
      const copyRate = weatherRows / copySeconds;
      const duckRate = weatherRows / duckSeconds;
      const ceiling = Math.min(copyRate, duckRate);
      console.log(
        `\nweather rows ${weatherRows.toLocaleString('en')} (${locations.length} locations × ${options.years} years); files hold ${weatherFiles.toLocaleString('en')}`,
      );
      console.log('phase                                        rows/s     seconds');
      console.log(
        `COPY … TO STDOUT (read ceiling, csv)  ${rate(weatherRows, copySeconds).padStart(12)}  ${copySeconds.toFixed(1).padStart(9)}   (${(copyBytes / weatherRows).toFixed(0)} csv bytes/row)`,
      );
      console.log(
        `  COPY received, CPU of this process: pg-copy-streams ${(received.streams / received.rows).toFixed(2)} µs/row, envdata's CopyOut ${(received.copyOut / received.rows).toFixed(2)} µs/row (pg-copy-streams costs ${(received.streams / received.copyOut).toFixed(2)}× as much)`,
      );
      console.log(
        `DuckDB → Parquet from memory          ${rate(weatherRows, duckSeconds).padStart(12)}  ${duckSeconds.toFixed(1).padStart(9)}`,
      );
      console.log(
        `export parquet (weather rows / whole) ${rate(weatherRows, full.seconds).padStart(12)}  ${full.seconds.toFixed(1).padStart(9)}   (${full.partitions} partitions, ${full.rows.toLocaleString('en')} rows incl. daily + locations)`,
      );
      console.log(
        `  of which: waiting for Postgres ${full.phases.read.toFixed(1)} s, DuckDB writing Parquet ${full.phases.write.toFixed(1)} s, waiting for the last file's digest ${full.phases.digestWait.toFixed(1)} s\n  (reading the files back for their digests took ${full.phases.digest.toFixed(1)} s, each beside the next file's write)`,
      );
      const pct = Math.round((100 * exportRate) / ceiling);
      console.log(
        `export at ${pct} % of the smaller ceiling (target >= 70 %)  ${pct >= 70 ? 'PASS' : '** MISS **'}`,
      );
      console.log(
        `export verify: ${verifySeconds.toFixed(1)} s, ${verified.difference === null ? 'every partition agrees' : `DIFFERS: ${verified.difference.partition}`}`,
      );
      const whBytes = Number(size[0]!.bytes);
      console.log(
        `bytes per weather row: files ${(weatherBytes / weatherRows).toFixed(1)}, warehouse ${(whBytes / weatherRows).toFixed(1)} (table + indexes): ${(whBytes / weatherBytes).toFixed(1)}x smaller`,
      );
      console.log(
        `peak RSS of the export: ${(full.maxRssKiB / 1024).toFixed(0)} MB at ${full.rows.toLocaleString('en')} rows, ${(small.maxRssKiB / 1024).toFixed(0)} MB at ${small.rows.toLocaleString('en')} rows`,
      );
      console.log(
        '\nBI query (median / p95 ms)                                             Postgres          files (DuckDB)',
      );
      for (const r of results) {
        console.log(
          `${r.name.padEnd(70)} ${ms(quantile(r.pg, 0.5)).padStart(8)} / ${ms(quantile(r.pg, 0.95)).padStart(8)}   ${ms(quantile(r.duck, 0.5)).padStart(8)} / ${ms(quantile(r.duck, 0.95)).padStart(8)}`,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

await main();
