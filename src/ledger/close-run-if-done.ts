import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import { refreshDailyRollups } from '../warehouse/refresh-daily-rollups.js';
import { formatHourRanges } from '../windows/hour-ranges.js';
import { recordLineage } from './record-lineage.js';
import { recordNotification } from './record-notification.js';
import { formatValuesSetAside, valuesOf, valuesSetAside } from './values-set-aside.js';

export type ClosedStatus = 'done' | 'failed';

/**
 * Closes the run when nothing is left to do, and proves it complete while doing so: every hour
 * of its plan must be in the warehouse (`coverage.landed`), answered "no data", recorded as a
 * hole (missing upstream, quarantined, not covered) or inside a failed chunk. Hours that are none
 * of these fail the run with `UNACCOUNTED_HOURS` — a run never reads "done" over a silent hole.
 * The run ends `done`, or `failed` when chunks failed, a dataset was blocked or hours are
 * unaccounted for; its days' rollups are refreshed in the same transaction (`refreshDailyRollups`), so a run is seen
 * finished only with its rollups current. A run that ends failed, or with quarantined hours or
 * failed chunks, records a `run-ended` notification in the same transaction, and every run its
 * lineage COMPLETE or FAIL (`recordLineage`). Returns the new
 * status to the one caller that closed it, else `undefined`. Callers go through `RunCloser`.
 */
export async function closeRunIfDone(
  db: Kysely<Database>,
  runId: number,
): Promise<ClosedStatus | undefined> {
  // A look without a lock first: while chunks are in flight (nearly every call, on a busy run)
  // the answer is "open" at once, instead of waiting for the row lock behind every landing's
  // share lock on the run. Only a run that looks finished is locked and checked again.
  if (await isOpen(db, runId, false)) return undefined;
  return db.transaction().execute(async (trx) => {
    if (await isOpen(trx, runId, true)) return undefined;

    const { rows: unaccounted } = await sql<{
      location_id: number;
      dataset: string;
      ranges: { from: Date; to: Date }[];
    }>`
      select g.location_id, g.dataset::text,
        json_agg(json_build_object('from', lower(u.part), 'to', upper(u.part))) as ranges
      from envdata.run_gap g
      join envdata.run r using (run_id)
      left join envdata.coverage c using (location_id, dataset)
      cross join lateral unnest(
        tstzmultirange(tstzrange(g.gap_from, g.gap_to))
        - coalesce(c.landed, '{}') - coalesce(c.no_data, '{}')
        - coalesce((select range_agg(h.hours) from envdata.coverage_hole h
            where h.location_id = g.location_id and h.dataset = g.dataset), '{}')
        - coalesce((select range_agg(tstzrange(x.window_from, x.window_to)) from envdata.chunk x
            where x.run_id = g.run_id and x.location_id = g.location_id
              and x.dataset = g.dataset and x.status = 'failed'), '{}')
      ) as u(part)
      where g.run_id = ${runId} and not (g.dataset::text = any(r.blocked_datasets))
      group by g.location_id, g.dataset`.execute(trx);

    const problem =
      unaccounted.length === 0
        ? null
        : `hours of the plan are neither in the warehouse nor recorded as missing: ${unaccounted
            .slice(0, 3)
            .map(
              (u) =>
                `location ${u.location_id} ${u.dataset} ${formatHourRanges(
                  u.ranges.map((r) => ({ from: new Date(r.from), to: new Date(r.to) })),
                )}`,
            )
            .join('; ')}. Run the same backfill again to fetch them.`;
    const { rows } = await sql<{ status: ClosedStatus }>`
      update envdata.run r set
        status = case
          when ${problem}::text is not null then 'failed'
          when cardinality(r.blocked_datasets) > 0 then 'failed'
          when exists (select 1 from envdata.chunk c where c.run_id = r.run_id and c.status = 'failed')
            then 'failed'
          else 'done' end,
        error_code = case when ${problem}::text is not null then 'UNACCOUNTED_HOURS' else r.error_code end,
        error_message = coalesce(${problem}::text, r.error_message),
        finished_at = now()
      where r.run_id = ${runId}
      returning r.status`.execute(trx);
    await refreshDailyRollups(trx);
    await recordRunEnded(trx, runId);
    const status = rows[0]?.status;
    if (status) await recordLineage(trx, runId, status === 'done' ? 'COMPLETE' : 'FAIL');
    return status;
  });
}

/**
 * Whether run `runId` still has work (gaps not yet tiled, chunks not finished) outside its blocked
 * datasets; also `true` when it is not running. `lock`: take the run's row for update.
 */
async function isOpen(
  db: Kysely<Database> | Transaction<Database>,
  runId: number,
  lock: boolean,
): Promise<boolean> {
  const { rows } = await sql<{ open: boolean }>`
      select exists (
          select 1 from envdata.run_gap g
          where g.run_id = r.run_id and g.next_from < g.gap_to
            and not (g.dataset::text = any(r.blocked_datasets)))
        or exists (
          select 1 from envdata.chunk c
          where c.run_id = r.run_id and c.status in ('pending', 'queued', 'running')
            and not (c.dataset::text = any(r.blocked_datasets))) as open
      from envdata.run r where r.run_id = ${runId} and r.status = 'running'
      ${lock ? sql`for update of r` : sql``}`.execute(db);
  return rows[0]?.open !== false;
}

/**
 * Records `run-ended` for run `runId`, just closed in `trx`, when a person has something to do:
 * it failed, hours were quarantined, chunks failed or values were set aside (`valuesSetAside`).
 * Its details count the failures by cause and name the command that fetches them again.
 */
async function recordRunEnded(trx: Transaction<Database>, runId: number): Promise<void> {
  const { rows } = await sql<{
    kind: string;
    status: string;
    error_code: string | null;
    error_message: string | null;
    blocked_datasets: string[];
    quarantined_hours: number;
    failed: Record<string, number> | null;
  }>`
    select r.kind::text, r.status::text, r.error_code, r.error_message, r.blocked_datasets,
      (r.folded_quarantined_hours + coalesce((select sum(c.quarantined_hours)
        from envdata.chunk c where c.run_id = r.run_id), 0))::int as quarantined_hours,
      (select json_object_agg(f.code, f.n) from (
        select coalesce(c.error_code, 'UNKNOWN') as code, count(*)::int as n
        from envdata.chunk c where c.run_id = r.run_id and c.status = 'failed' group by 1) f
      ) as failed
    from envdata.run r where r.run_id = ${runId}`.execute(trx);
  const run = rows[0];
  if (!run) return;
  const failedChunks = Object.values(run.failed ?? {}).reduce((a, b) => a + b, 0);
  const setAside = await valuesSetAside(trx, [runId]);
  if (
    run.status !== 'failed' &&
    run.quarantined_hours === 0 &&
    failedChunks === 0 &&
    setAside.length === 0
  ) {
    return;
  }
  await recordNotification(trx, {
    key: `run:${runId}:ended`,
    event: 'run-ended',
    details: {
      runId,
      kind: run.kind,
      status: run.status,
      failedChunks,
      failedByCode: run.failed ?? {},
      quarantinedHours: run.quarantined_hours,
      // Values set aside, said once here with the run, never per value.
      ...(setAside.length > 0 && {
        setAsideValues: setAside.reduce((n, g) => n + valuesOf(g), 0),
        setAside: formatValuesSetAside(setAside),
      }),
      blockedDatasets: run.blocked_datasets,
      errorCode: run.error_code,
      // A run that lost hours of its plan is fetched again by the same backfill; failed chunks
      // by `retry`.
      action:
        run.error_code === 'UNACCOUNTED_HOURS'
          ? `run the same ${run.kind} again (see \`envdata status ${runId}\`)`
          : failedChunks > 0
            ? `envdata retry ${runId}`
            : run.status !== 'failed' && run.quarantined_hours === 0 && setAside[0]
              ? setAside[0].command
              : `envdata status ${runId}`,
    },
  });
}
