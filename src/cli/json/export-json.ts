import { z } from 'zod';
import type { ExportSummary } from '../../export/export-parquet.js';
import type { VerifyExportResult } from '../../export/verify-export.js';
import { count, isoTimestamp, jsonDocument } from './json-document.js';

/** `envdata export parquet --json`. */
export const exportJson = jsonDocument('export', {
  dir: z.string().describe('the export’s directory, absolute'),
  snapshot: z
    .string()
    .describe(
      'the warehouse snapshot the files were read in (`pg_current_snapshot()`): the export’s position in the ledger, as the manifest records it',
    ),
  startedAt: isoTimestamp.describe('when the export started'),
  finishedAt: isoTimestamp.describe('when its manifest was complete'),
  written: z
    .array(z.string())
    .describe(
      'the partitions written, `dataset/YYYY-MM` (`locations` alone), in the order written; `[]` when nothing changed',
    ),
  removed: z
    .array(z.string())
    .describe('partitions whose rows are all gone from the warehouse: their files were removed'),
  unchanged: count.describe('partitions the manifest lists that were left as they were'),
  rows: count.describe('rows written'),
  bytes: count.describe('bytes of the Parquet files written'),
});

export function toExportJson(summary: ExportSummary, now: Date): z.infer<typeof exportJson> {
  return {
    kind: 'export',
    version: 1,
    generatedAt: now.toISOString(),
    dir: summary.dir,
    snapshot: summary.snapshot,
    startedAt: summary.startedAt,
    finishedAt: summary.finishedAt,
    written: [...summary.written],
    removed: [...summary.removed],
    unchanged: summary.unchanged,
    rows: summary.rows,
    bytes: summary.bytes,
  };
}

/** `envdata export verify --json`. */
export const exportVerifyJson = jsonDocument('export-verify', {
  dir: z.string().describe('the export’s directory, absolute'),
  ok: z.boolean().describe('every partition’s file, manifest entry and warehouse rows agree'),
  partitions: count.describe('partitions the manifest lists'),
  rowsChecked: count.describe('rows of the partitions checked before the first difference'),
  difference: z
    .object({
      partition: z.string().describe('`dataset/YYYY-MM` (`locations`)'),
      file: z.string().describe('its file, relative to the directory'),
      reason: z
        .string()
        .describe('what differs: counts and digests of the file, manifest and warehouse'),
    })
    .nullable()
    .describe('the first partition that differs; `null` when `ok`'),
});

export function toExportVerifyJson(
  dir: string,
  result: VerifyExportResult,
  now: Date,
): z.infer<typeof exportVerifyJson> {
  return {
    kind: 'export-verify',
    version: 1,
    generatedAt: now.toISOString(),
    dir,
    ok: result.difference === null,
    partitions: result.partitions,
    rowsChecked: result.rows,
    difference: result.difference,
  };
}

export type ExportJson = z.infer<typeof exportJson>;
export type ExportVerifyJson = z.infer<typeof exportVerifyJson>;
