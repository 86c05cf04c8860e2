/**
 * `npm run bench:copy-in`: what the one-write `CopyIn` (src/warehouse/wire/copy-in.ts: the COPY
 * statement and all its data in one write, no wait for the server's CopyInResponse) earns over
 * the ordinary way of sending a `COPY … FROM STDIN`, `pg-copy-streams` (the statement, a round
 * trip, then the data as a stream), in the same run on the same connection.
 *
 * In a throwaway database on BENCH_DATABASE_URL, one table shaped like `weather_hourly` (location,
 * hour, 14 reals; its primary key). For each batch size (rows per COPY: one 48 h chunk of one
 * location, 32 such chunks as the landing batches them, and 32 locations × a week), `--copies`
 * binary COPYs of new rows (fewer of the larger sizes) are sent one after another in one
 * transaction, as the landing sends them, by each way in turn, interleaved, `--runs` rounds; the medians of the time per COPY are printed, with the ratio. A measurement, not a
 * test: it exits 0 either way.
 *
 * @example npm run bench:copy-in -- --copies 200 --runs 5
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { CopyIn, copyData } from '../src/warehouse/wire/index.js';
import { benchDatabase, DEFAULT_SERVER_URL } from './lib/bench-database.js';

const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '200' },
    runs: { type: 'string', default: '5' },
  },
  strict: true,
});
const COPIES = Number(values.copies);
const RUNS = Number(values.runs);
const SIZES = [48, 32 * 48, 32 * 168];
const REALS = 14;
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/** `rows` binary COPY tuples of new keys: location `location`, hours from `firstHour` on. */
function tuples(location: number, firstHour: number, rows: number): Buffer {
  const size = 2 + 8 + 12 + REALS * 8;
  const out = Buffer.alloc(rows * size);
  for (let i = 0, at = 0; i < rows; i += 1) {
    at = out.writeInt16BE(2 + REALS, at);
    at = out.writeInt32BE(4, at);
    at = out.writeInt32BE(location, at);
    at = out.writeInt32BE(8, at);
    const hour = Date.UTC(2023, 0, 1) + (firstHour + i) * 3_600_000;
    at = out.writeBigInt64BE(BigInt(hour - POSTGRES_EPOCH_MS) * 1000n, at);
    for (let c = 0; c < REALS; c += 1) {
      at = out.writeInt32BE(4, at);
      at = out.writeFloatBE(Math.sin(i + c), at);
    }
  }
  return out;
}

const STATEMENT = `copy bench_copy (location_id, observed_at, ${Array.from(
  { length: REALS },
  (_, c) => `v${c}`,
).join(', ')}) from stdin (format binary)`;

/** The ways of sending one COPY of `data`. */
const WAYS: Record<string, (client: pg.Client, data: readonly Buffer[]) => Promise<void>> = {
  'CopyIn (one write)': async (client, data) => {
    const copy = new CopyIn(STATEMENT, data);
    void client.query(copy);
    await copy.done;
  },
  'pg-copy-streams': async (client, data) => {
    await pipeline(Readable.from(data, { objectMode: false }), client.query(copyFrom(STATEMENT)));
  },
};

const SERVER = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
const bench = benchDatabase(SERVER);
const admin = new pg.Client({ connectionString: SERVER });
await admin.connect();
await admin.query(`create database ${bench.name}`);
await admin.end();
const client = new pg.Client({ connectionString: bench.url });
try {
  await client.connect();
  const reals = Array.from({ length: REALS }, (_, c) => `v${c} real`).join(', ');
  await client.query(
    `create table bench_copy (location_id int not null, observed_at timestamptz not null, ${reals}, primary key (location_id, observed_at))`,
  );
  console.log(
    `bench:copy-in — ${COPIES} COPYs of 48 rows (fewer of more) per way, in one transaction, median of ${RUNS} rounds (Node ${process.version}, Postgres at ${new URL(SERVER).host})`,
  );
  let location = 0;
  for (const rows of SIZES) {
    const copies = Math.max(20, Math.round((COPIES * 48) / rows));
    const perCopy = new Map<string, number[]>(Object.keys(WAYS).map((way) => [way, []]));
    for (let run = 0; run <= RUNS; run += 1) {
      for (const [way, send] of Object.entries(WAYS)) {
        await client.query('truncate bench_copy');
        const batches = Array.from({ length: copies }, () =>
          copyData([tuples(++location, 0, rows)]),
        );
        // In one transaction, as the landing sends it: the COPYs are timed, not the commits.
        await client.query('begin');
        const started = performance.now();
        for (const data of batches) await send(client, data);
        const ms = (performance.now() - started) / copies;
        await client.query('commit');
        if (run > 0) perCopy.get(way)!.push(ms); // round 0 warms up
        const { rows: counted } = await client.query<{ n: string }>(
          'select count(*) as n from bench_copy',
        );
        if (Number(counted[0]!.n) !== copies * rows) throw new Error(`${way} lost rows`);
      }
    }
    const median = (list: number[]) =>
      [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    const [one, streams] = Object.keys(WAYS).map((way) => median(perCopy.get(way)!)) as [
      number,
      number,
    ];
    console.log(`  ${String(rows).padStart(5)} rows per COPY (${copies} COPYs):`);
    for (const [way, ms] of [
      ['CopyIn (one write)', one],
      ['pg-copy-streams', streams],
    ] as const) {
      console.log(
        `    ${way.padEnd(20)} ${ms.toFixed(3).padStart(8)} ms per COPY ${Math.round(
          (rows / ms) * 1000,
        )
          .toLocaleString('en')
          .padStart(11)} rows/s`,
      );
    }
    console.log(`    pg-copy-streams / CopyIn = ${(streams / one).toFixed(2)}×`);
  }
} finally {
  await client.end().catch(() => undefined);
  await bench.drop();
}
