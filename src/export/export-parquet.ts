import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { CopyOut } from '../warehouse/wire/index.js';
import {
  EXPORT_CANONICAL_FORM,
  EXPORT_DATASETS,
  duckCsvColumns,
  duckDigestQuery,
  exportDataset,
  partitionFile,
  partitionId,
  partitionSelect,
  type ExportDataset,
  type PartitionKey,
} from './export-datasets.js';
import {
  MANIFEST_FORMAT,
  readManifest,
  writeManifest,
  type ExportManifest,
  type ManifestPartition,
} from './export-manifest.js';
import { duckString, openDuckSession, type DuckSession } from './duckdb-session.js';

/** Rows per Parquet row group: large enough for scans, small enough to prune by statistics. */
export const ROW_GROUP_SIZE = 245_760;

/**
 * How the files are written: zstd at level 1, not DuckDB's default 3, which costs the write a
 * sixth more CPU for files 0.5 % smaller (`npm run bench:export`, DuckDB's ceiling uses these).
 */
export const PARQUET_OPTIONS = `FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE ${ROW_GROUP_SIZE}`;

/** One export at a time per warehouse (whatever its directory): a session advisory lock. */
const EXPORT_LOCK = "hashtext('envdata export parquet')";

export interface ExportParquetOptions {
  readonly databaseUrl: string;
  readonly dir: string;
  /** Rewrite every partition, whatever the marks say. */
  readonly full?: boolean;
  /** After each partition, once chosen: done of total, the partition just finished. */
  readonly onProgress?: (progress: ExportProgress) => void;
  /** After a partition's file is in place and the manifest says so (tests stop here). */
  readonly onPartitionWritten?: (entry: ManifestPartition) => Promise<void> | void;
}

export interface ExportProgress {
  readonly done: number;
  readonly total: number;
  readonly rows: number;
  readonly partition: string;
}

export interface ExportSummary {
  readonly dir: string;
  readonly snapshot: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  /** Partitions written (`weather_hourly/2024-03`), in order. */
  readonly written: readonly string[];
  /** Partitions whose rows are all gone from the warehouse: their files removed. */
  readonly removed: readonly string[];
  readonly rows: number;
  readonly bytes: number;
  /** Partitions listed by the manifest and left as they were. */
  readonly unchanged: number;
  /**
   * Seconds (`bench:export` prints them): waiting for Postgres's rows (beyond what overlapped
   * DuckDB's work); DuckDB writing Parquet; DuckDB reading the files back for their digests (at
   * the same time as the next file's write: the two overlap); and waiting for a digest to finish
   * before the next could start (beyond what overlapped the write).
   */
  readonly phases: {
    readonly read: number;
    readonly write: number;
    readonly digest: number;
    readonly digestWait: number;
  };
}

export class ExportBusy extends Error {
  constructor() {
    super('another envdata export is running on this warehouse');
    this.name = 'ExportBusy';
  }
}

const keyOf = (p: PartitionKey) => `${p.dataset}|${p.year}|${p.month}`;

/** Removes what a killed export left: `*.tmp-<pid>` files and staging directories. */
async function removeLeftovers(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    },
  );
  for (const entry of entries) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory() && entry.name.startsWith('.staging-')) {
      await rm(full, { recursive: true, force: true });
    } else if (entry.isFile() && /\.tmp-\d+(-[0-9a-f]+)?$/.test(entry.name)) {
      await rm(full, { force: true });
    }
  }
}

/** The partitions holding rows, by dataset (a scan of the time column). */
async function partitionsWithRows(client: pg.Client): Promise<PartitionKey[]> {
  const keys: PartitionKey[] = [{ dataset: 'locations', year: 0, month: 0 }];
  for (const dataset of EXPORT_DATASETS) {
    if (dataset.partitionBy === 'none') continue;
    const month =
      dataset.partitionBy === 'hour'
        ? `date_trunc('month', ${dataset.time} at time zone 'UTC')`
        : `date_trunc('month', ${dataset.time})`;
    const { rows } = await client.query<{ year: number; month: number }>(
      `select extract(year from m)::int as year, extract(month from m)::int as month
         from (select distinct ${month} as m from ${dataset.from.split(' join ')[0]}) d order by m`,
    );
    for (const row of rows) keys.push({ dataset: dataset.name, year: row.year, month: row.month });
  }
  return keys;
}

/**
 * The partitions a transaction changed that the manifest's file of it did not see: a mark whose
 * transaction is not visible in the snapshot that file was read in (or with no file).
 */
async function markedPartitions(
  client: pg.Client,
  manifest: ExportManifest | undefined,
): Promise<PartitionKey[]> {
  const seen = (manifest?.partitions ?? []).map((p) => ({
    dataset: p.dataset,
    year: p.year,
    month: p.month,
    snapshot: p.snapshot,
  }));
  const { rows } = await client.query<PartitionKey>(
    `select distinct m.dataset, m.year::int as year, m.month::int as month
       from envdata.export_mark m
       left join jsonb_to_recordset($1::jsonb) as e(dataset text, year int, month int, snapshot text)
         on e.dataset = m.dataset and e.year = m.year and e.month = m.month
      where e.snapshot is null or not pg_visible_in_snapshot(m.xid, e.snapshot::pg_snapshot)
      order by 1, 2, 3`,
    [JSON.stringify(seen)],
  );
  return rows;
}

/** The order partitions are written in: dataset order of EXPORT_DATASETS, then time. */
function byDatasetAndTime(a: PartitionKey, b: PartitionKey): number {
  const order = (p: PartitionKey) => EXPORT_DATASETS.findIndex((d) => d.name === p.dataset);
  return order(a) - order(b) || a.year - b.year || a.month - b.month;
}

/** Streams a partition's rows from Postgres into a CSV file (never the whole in memory). */
async function copyPartition(
  client: pg.Client,
  dataset: ExportDataset,
  partition: PartitionKey,
  file: string,
): Promise<void> {
  const stream = client.query(
    new CopyOut(`COPY (${partitionSelect(dataset, partition)}) TO STDOUT (FORMAT csv)`),
  );
  // Writes of a megabyte, not of the stream's default 16 kB: about 0.3 µs of CPU a row less.
  await pipeline(stream, createWriteStream(file, { highWaterMark: 1 << 20 }));
}

interface WrittenFile {
  readonly rows: number;
  readonly digest: string;
  readonly from: string | null;
  readonly to: string | null;
}

/** Writes a CSV of the partition as Parquet at `target`. */
async function writeParquet(
  duck: DuckSession,
  dataset: ExportDataset,
  csv: string,
  target: string,
  phases: { write: number },
): Promise<void> {
  const t0 = performance.now();
  const names = dataset.columns.map((c) => `"${c.name}"`).join(', ');
  await duck.run(
    `COPY (SELECT ${names} FROM read_csv(${duckString(csv)}, columns = ${duckCsvColumns(dataset)},
        header = false, auto_detect = false, delim = ',', quote = '"', escape = '"',
        allow_quoted_nulls = false))
      TO ${duckString(target)} (${PARQUET_OPTIONS})`,
  );
  phases.write += (performance.now() - t0) / 1000;
}

/** Reads a partition's file back: its count, digest and time range. */
async function digestParquet(
  duck: DuckSession,
  dataset: ExportDataset,
  target: string,
  phases: { digest: number },
): Promise<WrittenFile> {
  const t1 = performance.now();
  const time = `"${dataset.timeColumn}"`;
  const range =
    dataset.partitionBy === 'hour'
      ? `strftime(min(${time}), '%Y-%m-%dT%H:%M:%SZ') as "from", strftime(max(${time}) + INTERVAL 1 HOUR, '%Y-%m-%dT%H:%M:%SZ') as "to"`
      : dataset.partitionBy === 'day'
        ? `strftime(min(${time}), '%Y-%m-%d') as "from", strftime(max(${time}), '%Y-%m-%d') as "to"`
        : `NULL::VARCHAR as "from", NULL::VARCHAR as "to"`;
  const file = `read_parquet(${duckString(target)})`;
  const [row] = await duck.rows(
    `SELECT * FROM (${duckDigestQuery(dataset, file)}) CROSS JOIN (SELECT ${range} FROM ${file})`,
  );
  phases.digest += (performance.now() - t1) / 1000;
  return {
    rows: Number(row!.rows),
    digest: String(row!.digest),
    from: (row!.from as string | null) ?? null,
    to: (row!.to as string | null) ?? null,
  };
}

/**
 * `envdata export parquet --to DIR`: writes the partitions that changed since the manifest's
 * files were read (all of them the first time), each as a new file renamed into place, the
 * manifest rewritten (atomically) after each, in one REPEATABLE READ snapshot of the warehouse;
 * then deletes the change marks that snapshot saw, and records the export.
 */
export async function exportParquet(options: ExportParquetOptions): Promise<ExportSummary> {
  const dir = path.resolve(options.dir);
  const startedAt = new Date().toISOString();
  await mkdir(dir, { recursive: true });
  const reader = new pg.Client({ connectionString: options.databaseUrl });
  const writer = new pg.Client({ connectionString: options.databaseUrl });
  await reader.connect();
  let duck: DuckSession | undefined;
  const staging = path.join(dir, `.staging-${process.pid}`);
  let finishing: Promise<void> = Promise.resolve();
  try {
    await writer.connect();
    const { rows: locked } = await reader.query<{ locked: boolean }>(
      `select pg_try_advisory_lock(${EXPORT_LOCK}) as locked`,
    );
    if (!locked[0]!.locked) throw new ExportBusy();
    await removeLeftovers(dir);
    await mkdir(staging, { recursive: true });
    const previous = await readManifest(dir);
    // Digests of another canonical form cannot be compared: every partition is written again.
    const full =
      options.full === true ||
      (previous !== undefined && previous.canonicalForm !== EXPORT_CANONICAL_FORM);
    await reader.query('begin isolation level repeatable read read only');
    await reader.query(
      "set local timezone = 'UTC'; set local datestyle = 'ISO, YMD'; set local extra_float_digits = 1",
    );
    const { rows: snapshotRows } = await reader.query<{ snapshot: string; taken: Date }>(
      'select pg_current_snapshot()::text as snapshot, now() as taken',
    );
    const snapshot = snapshotRows[0]!.snapshot;
    const takenAt = snapshotRows[0]!.taken.toISOString();

    const listed = new Map((previous?.partitions ?? []).map((p) => [keyOf(p), p]));
    const marked = await markedPartitions(reader, full ? undefined : previous);
    const chosen = new Map(marked.map((p) => [keyOf(p), p]));
    if (full || !previous?.complete) {
      for (const p of await partitionsWithRows(reader)) {
        const entry = listed.get(keyOf(p));
        if (full || !entry) chosen.set(keyOf(p), p);
      }
      // A partition listed whose rows were all deleted before its marks could say so.
      if (full) for (const p of listed.values()) chosen.set(keyOf(p), p);
    }
    const todo = [...chosen.values()].sort(byDatasetAndTime);

    duck = await openDuckSession();
    const manifest = new Map(listed);
    const save = (complete: boolean, position: ExportManifest['position']) =>
      writeManifest(dir, {
        format: MANIFEST_FORMAT,
        canonicalForm: EXPORT_CANONICAL_FORM,
        complete,
        position,
        partitions: [...manifest.values()],
      });
    const written: string[] = [];
    const removed: string[] = [];
    let rows = 0;
    let bytes = 0;
    const csvOf = (i: number) => path.join(staging, `${i}.csv`);
    // Postgres streams the next partition while DuckDB writes this one.
    let next: Promise<void> | undefined =
      todo.length > 0
        ? copyPartition(reader, exportDataset(todo[0]!.dataset), todo[0]!, csvOf(0))
        : undefined;
    const phases = { read: 0, write: 0, digest: 0, digestWait: 0 };
    // The digest of a file (one DuckDB connection) runs while the next is written (another):
    // a month is one or two row groups, which DuckDB reads on as many threads, so apart they
    // would leave a core idle. At most one file waits for its digest.
    const digester = await duck.connect();
    const finish = async (i: number, partition: PartitionKey): Promise<void> => {
      const dataset = exportDataset(partition.dataset);
      const file = partitionFile(partition);
      const target = path.join(dir, file);
      const temporary = `${target}.tmp-${process.pid}`;
      const result = await digestParquet(digester, dataset, temporary, phases);
      if (result.rows === 0) {
        await rm(temporary, { force: true });
        await rm(target, { force: true });
        if (manifest.delete(keyOf(partition))) removed.push(partitionId(partition));
      } else {
        const size = (await stat(temporary)).size;
        await rename(temporary, target);
        manifest.set(keyOf(partition), {
          dataset: partition.dataset,
          year: partition.year,
          month: partition.month,
          file,
          rows: result.rows,
          bytes: size,
          from: result.from,
          to: result.to,
          digest: result.digest,
          snapshot,
          writtenAt: new Date().toISOString(),
        });
        written.push(partitionId(partition));
        rows += result.rows;
        bytes += size;
      }
      await save(previous?.complete ?? false, previous?.position ?? null);
      await writer.query(
        `delete from envdata.export_mark
          where dataset = $1 and year = $2 and month = $3
            and pg_visible_in_snapshot(xid, $4::pg_snapshot)`,
        [partition.dataset, partition.year, partition.month, snapshot],
      );
      const entry = manifest.get(keyOf(partition));
      if (entry) await options.onPartitionWritten?.(entry);
      options.onProgress?.({
        done: i + 1,
        total: todo.length,
        rows,
        partition: partitionId(partition),
      });
    };
    for (const [i, partition] of todo.entries()) {
      const dataset = exportDataset(partition.dataset);
      const waited = performance.now();
      await next;
      phases.read += (performance.now() - waited) / 1000;
      next =
        i + 1 < todo.length
          ? copyPartition(reader, exportDataset(todo[i + 1]!.dataset), todo[i + 1]!, csvOf(i + 1))
          : undefined;
      // Never an unhandled rejection while DuckDB works: awaited on the next turn.
      next?.catch(() => {});
      const target = path.join(dir, partitionFile(partition));
      await mkdir(path.dirname(target), { recursive: true });
      await writeParquet(duck, dataset, csvOf(i), `${target}.tmp-${process.pid}`, phases);
      await unlink(csvOf(i));
      const behind = performance.now();
      await finishing;
      phases.digestWait += (performance.now() - behind) / 1000;
      finishing = finish(i, partition);
      finishing.catch(() => {});
    }
    const behind = performance.now();
    await finishing;
    phases.digestWait += (performance.now() - behind) / 1000;
    await reader.query('commit');
    await save(true, { snapshot, takenAt });
    const finishedAt = new Date().toISOString();
    await writer.query(
      `insert into envdata.export_run
         (target, started_at, finished_at, snapshot, partitions_written, rows_written, bytes_written)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [dir, startedAt, finishedAt, snapshot, written.length, rows, bytes],
    );
    return {
      dir,
      snapshot,
      startedAt,
      finishedAt,
      written,
      removed,
      rows,
      bytes,
      unchanged: manifest.size - written.length,
      phases,
    };
  } finally {
    // A digest still reading when the write failed: DuckDB is closed after it.
    await finishing.catch(() => {});
    duck?.close();
    await rm(staging, { recursive: true, force: true });
    await reader.end().catch(() => {});
    await writer.end().catch(() => {});
  }
}
