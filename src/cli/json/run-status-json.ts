import { z } from 'zod';
import { DATASETS } from '../../types.js';
import type { StatusReport } from '../../status/collect-status-report.js';
import { count, isoTimestamp, jsonDocument } from './json-document.js';
import { runJson, toRunJson } from './run-json.js';
import { postgresHealthJson, queueHealthJson, serviceHealthJson } from './service-health-json.js';

/** `envdata status RUN --json`. */
export const runStatusJson = jsonDocument('run-status', {
  postgres: postgresHealthJson,
  queue: queueHealthJson,
  ledgerRead: z
    .boolean()
    .describe(
      'whether the ledger could be read (Postgres answers, no migration pending); when `false`, `run` is `null`',
    ),
  run: runJson.nullable().describe('the run; `null` only when the ledger could not be read'),
  failedChunks: z
    .array(
      z.object({
        code: z
          .string()
          .describe('the error code the chunks failed with (`SERVER_ERROR`, …; `UNKNOWN` if none)'),
        message: z.string().describe('the error message they share'),
        chunks: count.describe('how many failed chunks have this code and message'),
        examples: z
          .array(
            z.object({
              chunkId: count.describe('the chunk’s id'),
              locationId: count.describe('its location’s id'),
              location: z.string().describe('its location’s name'),
              dataset: z.enum(DATASETS).describe('its dataset'),
              from: isoTimestamp.describe('start of its window (inclusive)'),
              to: isoTimestamp.describe('end of its window (exclusive)'),
              attempts: count.describe('attempts made'),
              traceId: z
                .string()
                .regex(/^[0-9a-f]{32}$/)
                .nullable()
                .describe(
                  'the OpenTelemetry trace id of its last attempt (32 hex digits); `null` when tracing was off or the trace not sampled',
                ),
            }),
          )
          .describe('the first three chunks of the group, by chunk id'),
      }),
    )
    .describe(
      'the run’s failed chunks grouped by code and message, largest group first; `envdata retry RUN` queues them again',
    ),
  unplaceableRecords: z
    .array(
      z.object({
        quarantineId: count.describe('its row in `envdata.quarantine` (the record’s copy)'),
        chunkId: count.nullable().describe('the chunk whose answer carried it'),
        locationId: count.nullable().describe('its location’s id'),
        location: z.string().nullable().describe('its location’s name'),
        source: z.string().describe('what answered it: `pollen_history` or `weather_history`'),
        recordIndex: count.describe('its position in the answer’s records'),
        reason: z.string().describe('why it was set aside'),
      }),
    )
    .describe(
      'the first ten records the service sent without a readable hour (`run.recordsUnplaceable` counts them all); `[]` when none',
    ),
});

export type RunStatusJson = z.infer<typeof runStatusJson>;

/** `envdata status RUN` as JSON: health, the run, its failed chunks and unplaceable records. */
export function toRunStatusJson(report: StatusReport, generatedAt: Date): RunStatusJson {
  const run = report.runs[0];
  return {
    kind: 'run-status',
    version: 1,
    generatedAt: generatedAt.toISOString(),
    ...serviceHealthJson(report.status),
    ledgerRead: report.ledgerRead,
    run: run ? toRunJson(run) : null,
    failedChunks: report.failedChunks.map((g) => ({
      code: g.code,
      message: g.message,
      chunks: g.chunks,
      examples: g.examples.map((c) => ({
        chunkId: c.chunkId,
        locationId: c.locationId,
        location: c.location,
        dataset: c.dataset,
        from: c.from.toISOString(),
        to: c.to.toISOString(),
        attempts: c.attempts,
        traceId: c.traceId,
      })),
    })),
    unplaceableRecords: report.unplaceableRecords.map((r) => ({ ...r })),
  };
}
