import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { Database } from '../../src/warehouse/schema.js';
import { checkpoint } from './bench-database.js';

/**
 * This machine's ceiling for writing fact rows, measured in the same run as the landing it is
 * compared with: the rows the landing stored, written again into tables identical to the fact
 * tables (columns, types, checks, primary key, FKs, yearly partitions with their BRIN index) in
 * schema `bench_ceiling`, two ways:
 * - `INSERT … SELECT`: generated and inserted by the server in one statement per table;
 * - `COPY … FROM STDIN (FORMAT binary)`: streamed from this process, the data read beforehand
 *   (untimed) with `COPY (SELECT …) TO STDOUT`.
 * Values are computed (not the landed ones); keys are exactly the landed keys, each with the
 * source answer it landed with (`answer_id`, migration 0051), as the landing writes it.
 */

export const FACT_TABLES = ['weather_hourly', 'pollen_hourly', 'pollen_species_hourly'] as const;
export type FactTableName = (typeof FACT_TABLES)[number];

export interface CeilingResult {
  readonly rows: number;
  readonly seconds: number;
}

export type Ceiling = Readonly<Record<FactTableName, CeilingResult>>;

export interface Ceilings {
  readonly insertSelect: Ceiling;
  readonly copy: Ceiling;
}

const KEYS: Readonly<Record<FactTableName, string>> = {
  weather_hourly: 'location_id, observed_at',
  pollen_hourly: 'location_id, observed_at, pollen_type',
  pollen_species_hourly: 'location_id, observed_at, species_id',
};

const RISK = sql`(array['Low', 'Moderate', 'High', 'Very High']::envdata.risk_level[])[1 + (x::int % 4)]`;

/** Computed values for the keys of `bench_ceiling.keys_<table>` (x: a number per key). */
const VALUES: Readonly<Record<FactTableName, RawBuilder<unknown>>> = {
  weather_hourly: sql`(10 + 8 * sin(x))::real, (9 + 8 * sin(x))::real, (4 + 3 * sin(x))::real,
    (0.6 + 0.3 * sin(x))::real, (1013 + 10 * sin(x))::real, (3 + 2 * sin(x))::real,
    (5 + 3 * sin(x))::real, (180 + 170 * sin(x))::real, (0.5 + 0.4 * sin(x))::real,
    10::real, (2 + 2 * sin(x))::real, (300 + 20 * sin(x))::real,
    (0.5 + 0.5 * sin(x))::real, (0.5 + 0.4 * sin(x))::real,
    case when sin(x) > 0 then 'rain' end, 'Partly Cloudy',
    'partly-cloudy'::envdata.weather_icon, 'partly-cloudy-day'`,
  pollen_hourly: sql`(100 + 100 * sin(x))::int, ${RISK}`,
  pollen_species_hourly: sql`(50 + 50 * sin(x))::int, ${RISK}`,
};

/** The rows of one ceiling table: its landed keys, computed values and landed source answer. */
function rowsOf(table: FactTableName): RawBuilder<unknown> {
  return sql`
    select ${sql.raw(KEYS[table].replace(/\w+/g, 'k.$&'))}, ${VALUES[table]}, k.answer_id
    from ${sql.table(`bench_ceiling.keys_${table}`)} k
    cross join lateral (select extract(epoch from k.observed_at) / 3600 + k.location_id as x) v`;
}

/**
 * Creates the `bench_ceiling` tables for the years `[from, to)` spans, and takes the keys the
 * landing stored there with their source answers (`keys_<table>`, in landing order) for the
 * ceilings to write again.
 */
export async function createCeilingTables(db: Kysely<Database>, from: Date, to: Date) {
  await sql`drop schema if exists bench_ceiling cascade; create schema bench_ceiling`.execute(db);
  const lastYear = new Date(to.getTime() - 1).getUTCFullYear();
  for (const table of FACT_TABLES) {
    const target = sql.table(`bench_ceiling.${table}`);
    await sql`create table ${target} (like ${sql.table(`envdata.${table}`)} including all)
      partition by range (observed_at)`.execute(db);
    await sql`alter table ${target} add foreign key (location_id)
      references envdata.location on delete cascade`.execute(db);
    await sql`select envdata.ensure_year_partitions(${`bench_ceiling.${table}`}::regclass,
      ${from.getUTCFullYear()}::int, ${lastYear}::int)`.execute(db);
    await sql`create table ${sql.table(`bench_ceiling.keys_${table}`)} as
      select ${sql.raw(KEYS[table])}, answer_id from ${sql.table(`envdata.${table}`)}
      where observed_at >= ${from} and observed_at < ${to}
      order by ${sql.raw(KEYS[table])}`.execute(db);
  }
  await sql`alter table bench_ceiling.pollen_species_hourly add foreign key (species_id)
    references envdata.pollen_species`.execute(db);
}

export async function dropCeilingTables(db: Kysely<Database>): Promise<void> {
  await sql`drop schema if exists bench_ceiling cascade`.execute(db);
}

async function truncate(db: Kysely<Database>, table: FactTableName): Promise<void> {
  await sql`truncate ${sql.table(`bench_ceiling.${table}`)}`.execute(db);
  await checkpoint(db);
}

/** One `INSERT … SELECT` per table, timed alone, the table emptied after. */
async function measureInsertSelect(db: Kysely<Database>): Promise<Ceiling> {
  const result: Partial<Record<FactTableName, CeilingResult>> = {};
  for (const table of FACT_TABLES) {
    await truncate(db, table);
    const t0 = performance.now();
    const inserted = await sql`insert into ${sql.table(`bench_ceiling.${table}`)}
      ${rowsOf(table)}`.execute(db);
    const seconds = (performance.now() - t0) / 1_000;
    result[table] = { rows: Number(inserted.numAffectedRows ?? 0n), seconds };
  }
  return result as Ceiling;
}

/** One binary `COPY … FROM STDIN` per table of rows read beforehand; timed alone. */
async function measureCopy(db: Kysely<Database>, url: string): Promise<Ceiling> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result: Partial<Record<FactTableName, CeilingResult>> = {};
    for (const table of FACT_TABLES) {
      const data: Buffer[] = [];
      const read = client.query(
        copyTo(`copy (${rowsOf(table).compile(db).sql}) to stdout (format binary)`),
      );
      for await (const chunk of read) data.push(chunk as Buffer);
      await truncate(db, table);
      const t0 = performance.now();
      const write = client.query(
        copyFrom(`copy bench_ceiling.${table} from stdin (format binary)`),
      );
      await pipeline(Readable.from(data), write);
      const seconds = (performance.now() - t0) / 1_000;
      result[table] = { rows: write.rowCount, seconds };
    }
    return result as Ceiling;
  } finally {
    await client.end();
  }
}

/**
 * Measures both ceilings on the `bench_ceiling` tables (made by `createCeilingTables`) and
 * leaves them empty. `url` is the bench database's, for the COPY connection.
 */
export async function measureCeilings(db: Kysely<Database>, url: string): Promise<Ceilings> {
  const insertSelect = await measureInsertSelect(db);
  const copy = await measureCopy(db, url);
  for (const table of FACT_TABLES) await truncate(db, table);
  return { insertSelect, copy };
}

/** Per table, the faster of several runs: the higher bar for a landing to reach. */
export function fastest(runs: readonly Ceiling[]): Ceiling {
  const pick = (t: FactTableName) =>
    runs.map((r) => r[t]).reduce((a, b) => (a.seconds <= b.seconds ? a : b));
  return {
    weather_hourly: pick('weather_hourly'),
    pollen_hourly: pick('pollen_hourly'),
    pollen_species_hourly: pick('pollen_species_hourly'),
  };
}

/** The rows and seconds of several tables together. */
export function sumCeilings(...results: readonly CeilingResult[]): CeilingResult {
  return {
    rows: results.reduce((n, c) => n + c.rows, 0),
    seconds: results.reduce((n, c) => n + c.seconds, 0),
  };
}
