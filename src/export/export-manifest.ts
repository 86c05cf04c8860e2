import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PartitionKey } from './export-datasets.js';

/** The manifest's name in the export's directory, and the version of its shape. */
export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'envdata-parquet-export/v1';

/** One partition's file as the manifest lists it. */
export interface ManifestPartition extends PartitionKey {
  /** Relative to the directory, `/`-separated. */
  readonly file: string;
  readonly rows: number;
  readonly bytes: number;
  /**
   * The time range of its rows: the first hour and the end of the last (exclusive, ISO UTC)
   * for hourly datasets; the first and last day for the daily ones; null when it has no time.
   */
  readonly from: string | null;
  readonly to: string | null;
  /** `envdata-export-rows/v2`: how each partition's digest is computed (see docs/export.md). */
  readonly digest: string;
  /** The warehouse snapshot (`pg_current_snapshot()`) it was read in: its ledger position. */
  readonly snapshot: string;
  readonly writtenAt: string;
}

export interface ExportManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly canonicalForm: string;
  /** True once an export wrote every partition of the warehouse (a first export may be cut). */
  readonly complete: boolean;
  /** The last export that finished: its snapshot and when it was taken. */
  readonly position: { readonly snapshot: string; readonly takenAt: string } | null;
  readonly partitions: readonly ManifestPartition[];
}

/** The manifest of `dir`, or undefined when there is none yet. */
export async function readManifest(dir: string): Promise<ExportManifest | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const manifest = JSON.parse(text) as ExportManifest;
  if (manifest.format !== MANIFEST_FORMAT) {
    throw new Error(`${path.join(dir, MANIFEST_FILE)} is not a ${MANIFEST_FORMAT} manifest`);
  }
  return manifest;
}

/** Writes the manifest atomically: a temporary file beside it, then a rename. */
export async function writeManifest(dir: string, manifest: ExportManifest): Promise<void> {
  const target = path.join(dir, MANIFEST_FILE);
  const temporary = `${target}.tmp-${process.pid}-${randomBytes(3).toString('hex')}`;
  const sorted = {
    ...manifest,
    partitions: [...manifest.partitions].sort((a, b) =>
      a.file < b.file ? -1 : a.file > b.file ? 1 : 0,
    ),
  };
  await writeFile(temporary, `${JSON.stringify(sorted, null, 2)}\n`);
  await rename(temporary, target);
}
