import { z } from 'zod';
import { DATASETS } from '../../types.js';
import type { StatusReport } from '../../status/collect-status-report.js';
import type { LocationFreshness } from '../format-freshness-table.js';
import { byDataset } from './by-dataset.js';
import { count, isoOrNull, isoTimestamp, jsonDocument } from './json-document.js';
import { runJson, toRunJson } from './run-json.js';
import { setAsideJson, toSetAsideJson } from './set-aside-json.js';
import type { Config } from '../../config/config.js';
import { quotaUsageJson, toQuotaUsageJson } from './quota-usage-json.js';
import { postgresHealthJson, queueHealthJson, serviceHealthJson } from './service-health-json.js';

const datasetFreshness = z
  .object({
    lastHour: isoTimestamp
      .nullable()
      .describe('start of the last hour whose rows landed; `null` when nothing was ingested'),
    lagHours: z
      .number()
      .nonnegative()
      .nullable()
      .describe(
        'hours from the end of that hour to `generatedAt` (when `knownEmpty`, from the end of the last hour answered "no data" or "not covered"); `null` when nothing is known',
      ),
    knownEmpty: z
      .boolean()
      .describe(
        'nothing landed and every hour asked was answered "Data not available!" or "not covered": not stale while those answers keep up; the "no data" hours are asked again after ENVDATA_NO_DATA_RECHECK',
      ),
    stale: z.boolean().describe('`lagHours` is above `maxLagHours`, or nothing is known'),
  })
  .describe('the freshness of that dataset at the location');

/** `envdata status --json`. */
export const statusJson = jsonDocument('status', {
  postgres: postgresHealthJson,
  queue: queueHealthJson,
  ledgerRead: z
    .boolean()
    .describe(
      'whether the ledger could be read (Postgres answers, no migration pending); when `false`, `runs` and `freshness` are empty',
    ),
  maxLagHours: z
    .number()
    .nonnegative()
    .describe('ENVDATA_FRESHNESS_MAX_LAG in hours: the lag beyond which a location is stale'),
  runs: z.array(runJson).describe('the 10 most recent runs, newest first'),
  setAside: setAsideJson.describe(
    'values set aside in the whole warehouse, whatever run (or rebuild) set them aside, not in the warehouse until `command` runs; `[]` when none or when the ledger could not be read',
  ),
  quota: quotaUsageJson,
  undeliveredAlerts: count
    .nullable()
    .describe(
      'alerts of the last ENVDATA_NOTIFY_MAX_AGE not yet delivered to every target of ENVDATA_NOTIFY_URL (all of them while it is unset); `null` when the ledger could not be read',
    ),
  archive: z
    .object({
      answers: count.describe(
        'answers recorded (`analytics.answers`), their bodies kept or not: each one’s SHA-256 stays',
      ),
      bodies: count.describe('answer bodies the archive keeps, once per SHA-256'),
      bytesOnDisk: count.describe(
        'bytes on disk of `envdata.answer_body` and `envdata.answer`, indexes and TOAST included',
      ),
      retentionDays: count
        .nullable()
        .describe(
          'ENVDATA_ARCHIVE_RETENTION_DAYS: bodies whose every answer is older are deleted; `null`: every body is kept',
        ),
    })
    .nullable()
    .describe('the raw archive’s size and retention; `null` when the ledger could not be read'),
  lastExport: z
    .object({
      target: z.string().describe('the directory it wrote (`--to`, ENVDATA_EXPORT_DIR)'),
      finishedAt: isoTimestamp.describe('when it finished'),
      partitionsWritten: count.describe('the partitions it wrote'),
      rowsWritten: count.describe('the rows of those partitions'),
      partitionsBehind: count.describe(
        'partitions changed since by transactions its snapshot did not see: what the next `envdata export parquet` writes',
      ),
      oldestChangeAt: isoTimestamp
        .nullable()
        .describe('when the oldest of those changes was made; `null` when nothing changed since'),
    })
    .nullable()
    .describe(
      'the last Parquet export that finished (`envdata export parquet`) and how far the warehouse moved since; `null` when none finished or the ledger could not be read',
    ),
  freshness: z
    .array(
      z.object({
        locationId: count.describe('the location’s id'),
        name: z.string().describe('its name'),
        stale: z.boolean().describe('whether any of its datasets is stale'),
        datasets: z
          .record(z.enum(DATASETS).meta({ title: 'dataset' }), datasetFreshness)
          .describe('each dataset’s freshness, keyed by dataset (`pollen`, `weather`)'),
      }),
    )
    .describe(
      'one entry per active location (retired ones left out): stale first, longest lag first, then the fresh ones by name',
    ),
});

export type StatusJson = z.infer<typeof statusJson>;

/** `envdata status` as JSON: health, recent runs and freshness by location. */
export function toStatusJson(
  report: StatusReport,
  freshness: readonly LocationFreshness[],
  maxLagHours: number,
  generatedAt: Date,
  config: Pick<Config, 'quota' | 'money' | 'ingest'>,
): StatusJson {
  return {
    kind: 'status',
    version: 1,
    generatedAt: generatedAt.toISOString(),
    ...serviceHealthJson(report.status),
    ledgerRead: report.ledgerRead,
    maxLagHours,
    runs: report.runs.map(toRunJson),
    setAside: toSetAsideJson(report.setAside),
    quota: toQuotaUsageJson(report.quota, config),
    undeliveredAlerts: report.undeliveredAlerts,
    archive: report.archive && {
      ...report.archive,
      retentionDays: config.ingest.archiveRetentionDays ?? null,
    },
    lastExport: report.lastExport
      ? {
          target: report.lastExport.target,
          finishedAt: report.lastExport.finishedAt.toISOString(),
          partitionsWritten: report.lastExport.partitionsWritten,
          rowsWritten: report.lastExport.rowsWritten,
          partitionsBehind: report.lastExport.partitionsBehind,
          oldestChangeAt: isoOrNull(report.lastExport.oldestChangeAt),
        }
      : null,
    freshness: freshness.map((row) => ({
      locationId: row.locationId,
      name: row.name,
      stale: row.stale,
      datasets: byDataset((dataset) => {
        const f = row.datasets[dataset];
        // Every active location has a row per dataset (`readFreshness`); never ingested if not.
        return f
          ? {
              lastHour: isoOrNull(f.lastHour),
              lagHours: f.lagHours,
              knownEmpty: f.knownEmpty,
              stale: f.stale,
            }
          : { lastHour: null, lagHours: null, knownEmpty: false, stale: true };
      }),
    })),
  };
}
