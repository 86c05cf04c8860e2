import { access } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import {
  EXPORT_DATASETS,
  duckDigestQuery,
  exportDataset,
  partitionFile,
  partitionId,
  partitionRange,
  pgDigestQuery,
  type PartitionKey,
} from './export-datasets.js';
import { readManifest, type ManifestPartition } from './export-manifest.js';
import { duckString, openDuckSession } from './duckdb-session.js';

export interface VerifyExportOptions {
  readonly databaseUrl: string;
  readonly dir: string;
  readonly onProgress?: (done: number, total: number, partition: string) => void;
}

/** A partition whose file, manifest and warehouse do not all agree. */
export interface PartitionDifference {
  readonly partition: string;
  readonly file: string;
  readonly reason: string;
}

export interface VerifyExportResult {
  readonly partitions: number;
  readonly rows: number;
  /** The first partition that differs (in the manifest's order), or null when all agree. */
  readonly difference: PartitionDifference | null;
}

/**
 * `envdata export verify --to DIR`: for each partition in turn, its count and digest from the
 * file (DuckDB) against the manifest's and the warehouse's (Postgres, one snapshot); then the
 * partitions the warehouse holds that no file does. Stops at the first difference.
 */
export async function verifyExport(options: VerifyExportOptions): Promise<VerifyExportResult> {
  const dir = path.resolve(options.dir);
  const manifest = await readManifest(dir);
  if (!manifest) {
    return {
      partitions: 0,
      rows: 0,
      difference: { partition: '-', file: 'manifest.json', reason: 'no manifest: not an export' },
    };
  }
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  const duck = await openDuckSession();
  try {
    await client.query('begin isolation level repeatable read read only');
    await client.query("set local timezone = 'UTC'");
    let rows = 0;
    const partitions = manifest.partitions;
    const differ = (p: ManifestPartition, reason: string): VerifyExportResult => ({
      partitions: partitions.length,
      rows,
      difference: { partition: partitionId(p), file: p.file, reason },
    });
    for (const [i, p] of partitions.entries()) {
      const dataset = exportDataset(p.dataset);
      const file = path.join(dir, p.file);
      const missing = await access(file).then(
        () => false,
        () => true,
      );
      if (missing) return differ(p, 'the file is missing');
      let fromFile: { rows: string; digest: string };
      try {
        [fromFile] = (await duck.rows(
          duckDigestQuery(dataset, `read_parquet(${duckString(file)})`),
        )) as { rows: string; digest: string }[] as [{ rows: string; digest: string }];
      } catch (error) {
        return differ(p, `DuckDB cannot read the file: ${(error as Error).message.split('\n')[0]}`);
      }
      if (Number(fromFile.rows) !== p.rows || fromFile.digest !== p.digest) {
        return differ(
          p,
          `the file holds ${fromFile.rows} rows, digest ${fromFile.digest}; the manifest says ${p.rows} rows, digest ${p.digest}`,
        );
      }
      const range = partitionRange(dataset, p);
      const where = range
        ? ` where ${dataset.time} >= ${range.from} and ${dataset.time} < ${range.to}`
        : '';
      const { rows: warehouse } = await client.query<{ rows: string; digest: string }>(
        pgDigestQuery(dataset, where),
      );
      const w = warehouse[0]!;
      if (Number(w.rows) !== p.rows || w.digest !== p.digest) {
        return differ(
          p,
          `the warehouse holds ${w.rows} rows, digest ${w.digest}; the file ${p.rows} rows, digest ${p.digest}`,
        );
      }
      rows += p.rows;
      options.onProgress?.(i + 1, partitions.length, partitionId(p));
    }
    const listed = new Set(partitions.map((p) => partitionFile(p)));
    for (const dataset of EXPORT_DATASETS) {
      if (dataset.partitionBy === 'none') continue;
      const month =
        dataset.partitionBy === 'hour'
          ? `date_trunc('month', ${dataset.time} at time zone 'UTC')`
          : `date_trunc('month', ${dataset.time})`;
      const { rows: held } = await client.query<{ year: number; month: number }>(
        `select distinct extract(year from ${month})::int as year, extract(month from ${month})::int as month
           from ${dataset.from.split(' join ')[0]} order by 1, 2`,
      );
      for (const h of held) {
        const key: PartitionKey = { dataset: dataset.name, year: h.year, month: h.month };
        if (!listed.has(partitionFile(key))) {
          return {
            partitions: partitions.length,
            rows,
            difference: {
              partition: partitionId(key),
              file: partitionFile(key),
              reason: 'the warehouse holds rows of it and the export no file',
            },
          };
        }
      }
    }
    await client.query('commit');
    return { partitions: partitions.length, rows, difference: null };
  } finally {
    duck.close();
    await client.end().catch(() => {});
  }
}
