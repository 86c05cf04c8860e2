import { z } from 'zod';
import { DATASETS } from '../../types.js';
import type { RunProgress } from '../../ledger/run-progress.js';
import { byDataset } from './by-dataset.js';
import { count, isoOrNull, isoTimestamp } from './json-document.js';
import { setAsideJson, toSetAsideJson } from './set-aside-json.js';

/** The kinds of run; a new kind may be added within a version. */
const RUN_KINDS = ['backfill', 'sync', 'rebuild'] as const;
/** The states of a run; a new state may be added within a version. */
const RUN_STATUSES = [
  'planning',
  'running',
  'paused',
  'done',
  'failed',
  'stopped',
  'cancelled',
] as const;

/** Where a run stands (`runProgress`), as `status --json` and `status RUN --json` report it. */
export const runJson = z.object({
  runId: count.describe('the run’s id (`envdata status RUN`, `retry RUN`, …)'),
  kind: z.enum(RUN_KINDS).describe('`backfill`, `sync` or `rebuild` (more may come)'),
  status: z
    .enum(RUN_STATUSES)
    .describe(
      '`planning`, `running`, `paused`, `done`, `failed`, `stopped` or `cancelled` (more may come)',
    ),
  createdAt: isoTimestamp.describe('when the run was planned'),
  finishedAt: isoTimestamp.nullable().describe('when it ended; `null` while it goes on'),
  errorCode: z
    .string()
    .nullable()
    .describe('why the run as a whole failed or stopped (`UNAUTHORIZED`, …); `null` otherwise'),
  errorMessage: z.string().nullable().describe('the same in words; `null` otherwise'),
  blockedDatasets: z
    .array(z.enum(DATASETS))
    .describe('datasets the API key may not use (403): their chunks were dropped'),
  percentDone: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe('finished chunks (done or failed) per hundred of `chunks.total`, rounded down'),
  chunks: z
    .object({
      total: count.describe(
        'chunks of the plan in all, those not yet created and those dropped included: `done + failed + inFlight + notYetDispatched + dropped`',
      ),
      done: count.describe('landed (or answered "no data" / "not covered")'),
      missingUpstream: count.describe(
        'of `done`, those that landed with hours the service never sent (`hours.missingUpstream`); the console draws them apart',
      ),
      failed: count.describe('gave up on; `envdata retry RUN` queues them again'),
      inFlight: count.describe(
        'created and not finished: pending, queued or running (of a cancelled run, running only)',
      ),
      running: count.describe('of `inFlight`, those a worker holds now'),
      notYetDispatched: count.describe(
        'windows of the plan not yet created as chunks (0 once the run is cancelled)',
      ),
      dropped: count.describe(
        'never to be fetched: a cancelled run’s chunks `envdata cancel` dropped and the windows of its plan never created (0 for a run not cancelled)',
      ),
      refetching: count.describe(
        'in flight again because hours were missing from their answer (part of `inFlight`)',
      ),
    })
    .describe('the run’s chunks (one history request each) by state'),
  rows: count.describe('fact rows landed'),
  calls: count.describe('API calls made'),
  recordsQuarantined: count.describe('records set aside (invalid, conflicting duplicates)'),
  recordsUnplaceable: count.describe(
    'of `recordsQuarantined`, those sent without a readable hour (an empty record, an unreadable stamp); a run with any does not succeed',
  ),
  setAside: setAsideJson.describe(
    'values of the run’s answers set aside, not in the warehouse, as the ledger holds them now (read once the run no longer runs: `[]` while it plans or runs); a run with any does not succeed (`--wait` exits 1)',
  ),
  hours: z
    .object({
      quarantined: count.describe('hours quarantined: no row landed for them'),
      missingUpstream: count.describe('hours still missing from the service’s answers'),
      notCovered: count.describe('hours the service does not cover (404)'),
      noData: count.describe('hours the service answered "no data" for'),
    })
    .describe('hours of the plan that did not land, by cause'),
  revisions: z
    .record(
      z.enum(DATASETS).meta({ title: 'dataset' }),
      z
        .object({
          rereadHours: count.describe(
            'hours the run landed that had landed before (another run’s, an earlier answer of the same chunk): the hours whose values it could revise',
          ),
          revisedHours: count.describe(
            'hours whose stored values it changed, the old ones kept in `analytics.<fact>_revisions` (`replaced_by_run`); pollen: distinct hours over `pollen_hourly` and `pollen_species_hourly`, an hour counted once whatever types or species changed',
          ),
          revisedShare: z
            .number()
            .nonnegative()
            .nullable()
            .describe(
              '`revisedHours / rereadHours`; `null` when it re-read none. Above ENVDATA_ALERT_REVISED_SHARE, an ended run raises `run-revised`',
            ),
        })
        .describe('what the run re-read and revised of that dataset'),
    )
    .describe(
      'what the run re-read and revised, keyed by dataset (`pollen`, `weather`); every dataset present, 0 when it landed none',
    ),
  failuresByCode: z
    .record(z.string().meta({ title: 'code' }), count)
    .describe('failed chunks by error code, e.g. `{"SERVER_ERROR": 2}`; `{}` when none'),
  waiting: z
    .object({
      reason: z
        .string()
        .describe(
          'what holds the run: `paused`, `quota (day)`, `quota (month)`, `throttled (429)` (every worker paused) or `no worker connected` (more may come); when several hold, the first of paused > quota or budget > throttled > no worker',
        ),
      until: isoTimestamp
        .nullable()
        .describe(
          'when it ends and the run moves again by itself; `null` when it takes an operator (paused, no worker)',
        ),
      hint: z
        .string()
        .nullable()
        .describe(
          'what ends it now, for people (`envdata resume 12`, ``start `envdata worker` ``); `null` when it ends by itself',
        ),
    })
    .nullable()
    .describe(
      'why a run with work left does not move, and until when; `null` when nothing holds it. No attempt is used while waiting',
    ),
});

export type RunJson = z.infer<typeof runJson>;

/** `runProgress` as JSON. */
export function toRunJson(p: RunProgress): RunJson {
  return {
    runId: p.runId,
    kind: p.kind,
    status: p.status,
    createdAt: p.createdAt.toISOString(),
    finishedAt: isoOrNull(p.finishedAt),
    errorCode: p.errorCode,
    errorMessage: p.errorMessage,
    blockedDatasets: DATASETS.filter((d) => p.blockedDatasets.includes(d)),
    percentDone: p.total === 0 ? 100 : Math.floor(((p.done + p.failed) / p.total) * 100),
    chunks: {
      total: p.total,
      done: p.done,
      missingUpstream: p.missingUpstream,
      failed: p.failed,
      inFlight: p.inFlight,
      running: p.running,
      notYetDispatched: p.notYetDispatched,
      dropped: p.dropped,
      refetching: p.refetching,
    },
    rows: p.rows,
    calls: p.calls,
    recordsQuarantined: p.recordsQuarantined,
    recordsUnplaceable: p.unplaceableRecords,
    setAside: toSetAsideJson(p.setAside),
    hours: {
      quarantined: p.quarantinedHours,
      missingUpstream: p.missingHours,
      notCovered: p.notCoveredHours,
      noData: p.noDataHours,
    },
    revisions: byDataset((dataset) => {
      const r = p.revisions.find((x) => x.dataset === dataset);
      const reread = r?.rereadHours ?? 0;
      const revised = r?.revisedHours ?? 0;
      return {
        rereadHours: reread,
        revisedHours: revised,
        revisedShare: reread === 0 ? null : revised / reread,
      };
    }),
    failuresByCode: { ...p.failures },
    waiting: p.waiting && {
      reason: p.waiting.reason,
      until: isoOrNull(p.waiting.until),
      hint: p.waiting.hint,
    },
  };
}
