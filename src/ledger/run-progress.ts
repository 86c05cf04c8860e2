import { sql, type Kysely } from 'kysely';
import type { Database, RunKind, RunStatus } from '../warehouse/schema.js';
import { countWindows } from '../windows/tile-windows.js';
import { valuesSetAside, type SetAsideGroup } from './values-set-aside.js';

export interface RunProgress {
  readonly runId: number;
  readonly kind: RunKind;
  readonly status: RunStatus;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly blockedDatasets: readonly string[];
  /** Chunks to do in all: materialized ones (splits replaced by their halves) + windows to come. */
  readonly total: number;
  readonly done: number;
  readonly failed: number;
  readonly inFlight: number;
  /** Windows of the plan not yet materialized as chunks. */
  readonly notYetDispatched: number;
  readonly rows: number;
  readonly calls: number;
  /** Records set aside (invalid, conflicting duplicates). */
  readonly recordsQuarantined: number;
  /**
   * Records sent without a readable hour (an empty record, an unreadable stamp): quarantined,
   * part of `recordsQuarantined`, and placed in no hour. A run with any is not clean.
   */
  readonly unplaceableRecords: number;
  /** Hours by cause that did not land, as the run's finished chunks recorded them. */
  readonly quarantinedHours: number;
  readonly missingHours: number;
  readonly notCoveredHours: number;
  readonly noDataHours: number;
  /** Chunks waiting to be fetched again because hours were missing from their answer. */
  readonly refetching: number;
  /**
   * Values the run's answers sent that are set aside, not in the warehouse (`valuesSetAside`:
   * a share whose unit is unknown, a held shape), as the ledger holds them now. Read once the
   * run no longer runs (`[]` while it plans or runs). A run with any is not clean.
   */
  readonly setAside: readonly SetAsideGroup[];
  /** Failed chunks by error code. */
  readonly failures: Readonly<Record<string, number>>;
  /**
   * Why a run with work left does not move (`RunWaiting`); `null` when nothing holds it (or it
   * has ended). From the ledger: `paused`, then a recorded hold (`quota (day)` until the
   * provider's next midnight, `budget (month)`, …); `withQueueWaiting` (src/status) adds what
   * only the queue knows.
   */
  readonly waiting: RunWaiting | null;
}

/**
 * Why a run does not move, as `status`, `--wait` and the console say it (`formatWaiting`).
 * When several hold, the first of: `paused` > a recorded hold (`quota (…)`, `budget (…)`) >
 * `throttled (429)` (the pause of every worker) > `no worker connected`.
 */
export interface RunWaiting {
  /** `paused`, `quota (day)`, `quota (month)`, `throttled (429)`, `no worker connected`, … */
  readonly reason: string;
  /** When it ends by itself; `null` when it takes an operator (paused, no worker). */
  readonly until: Date | null;
  /** What ends it now, for people: ``envdata resume 12``; `null` when it ends by itself. */
  readonly hint: string | null;
}

/** The hold a paused run shows: it moves again only when resumed. */
export function pausedWaiting(runId: number): RunWaiting {
  return { reason: 'paused', until: null, hint: `envdata resume ${runId}` };
}

/**
 * The hold of a run whose dataset is frozen by a new shape (drift policy `freeze`): it moves
 * again when the shapes are accepted.
 */
export function upstreamChangedWaiting(shapes: readonly string[]): RunWaiting {
  return {
    reason: 'upstream changed',
    until: null,
    hint: `envdata upstream (to see it), then envdata upstream accept ${shapes.join(' ')}`,
  };
}

/**
 * The hold the ledger records (`markRunWaiting`): `paused` first, then `upstream changed` while a
 * shape that froze a dataset of the run is not accepted, else a recorded reason while its
 * `until` lies ahead and the run is open.
 */
export function ledgerWaiting(run: {
  readonly runId: number;
  readonly status: RunStatus;
  readonly reason: string | null;
  readonly until: Date | null;
  readonly now: Date;
  /** Shapes not accepted that froze a dataset of the run (drift policy `freeze`). */
  readonly frozenShapes?: readonly string[];
}): RunWaiting | null {
  if (run.status === 'paused') return pausedWaiting(run.runId);
  if (run.status !== 'planning' && run.status !== 'running') return null;
  const frozen = run.frozenShapes ?? [];
  if (frozen.length > 0) return upstreamChangedWaiting(frozen);
  if (run.reason === null || run.until === null || run.until <= run.now) return null;
  return { reason: run.reason, until: run.until, hint: null };
}

/**
 * Where a run stands, from the ledger alone (`envdata status`, `--wait`): the totals of chunks
 * already folded into the run plus its chunk rows, read in one snapshot.
 */
export async function runProgress(
  db: Kysely<Database>,
  runId: number,
): Promise<RunProgress | undefined> {
  const { rows } = await sql<{
    kind: RunKind;
    status: RunStatus;
    created_at: Date;
    finished_at: Date | null;
    error_code: string | null;
    error_message: string | null;
    blocked_datasets: string[];
    done: number;
    failed: number;
    in_flight: number;
    refetching: number;
    rows: string;
    calls: string;
    quarantined: string;
    unplaceable: number;
    missing: string;
    quarantined_hours: string;
    not_covered: string;
    no_data: string;
    failures: Record<string, number> | null;
    waiting_reason: string | null;
    waiting_until: Date | null;
    frozen_shapes: string[] | null;
    now: Date;
  }>`
    select r.kind, r.status, r.created_at, r.finished_at, r.error_code, r.error_message,
      r.blocked_datasets,
      r.folded_chunks + c.done as done, c.failed, c.in_flight, c.refetching,
      (r.folded_rows + c.rows)::text as rows, (r.folded_calls + c.calls)::text as calls,
      (r.folded_records_quarantined + c.quarantined)::text as quarantined,
      (select count(*)::int from envdata.quarantine q
        where q.run_id = r.run_id and q.observed_at is null) as unplaceable,
      (r.folded_missing_hours + c.missing)::text as missing,
      (r.folded_quarantined_hours + c.quarantined_hours)::text as quarantined_hours,
      (r.folded_not_covered_hours + c.not_covered)::text as not_covered,
      (r.folded_no_data_hours + c.no_data)::text as no_data,
      c.failures,
      r.waiting_reason, r.waiting_until, now() as now,
      (select array_agg(distinct s.digest order by s.digest) from envdata.upstream_shape s
        where s.froze and s.accepted_at is null and exists (select 1 from envdata.run_gap g
          where g.run_id = r.run_id and g.dataset = s.dataset)) as frozen_shapes
    from envdata.run r
    cross join lateral (
      select
        (count(*) filter (where status = 'done'))::int as done,
        (count(*) filter (where status = 'failed'))::int as failed,
        (count(*) filter (where status in ('pending', 'queued', 'running')))::int as in_flight,
        (count(*) filter (where status in ('pending', 'queued', 'running')
          and error_code = 'MISSING_HOURS'))::int as refetching,
        coalesce(sum(rows_landed), 0) as rows, coalesce(sum(calls), 0) as calls,
        coalesce(sum(rows_quarantined), 0) as quarantined,
        coalesce(sum(missing_hours), 0) as missing,
        coalesce(sum(quarantined_hours), 0) as quarantined_hours,
        coalesce(sum(not_covered_hours), 0) as not_covered,
        coalesce(sum(no_data_hours), 0) as no_data,
        (select json_object_agg(code, n) from (
          select coalesce(error_code, 'UNKNOWN') as code, count(*)::int as n
          from envdata.chunk where run_id = r.run_id and status = 'failed' group by 1) f
        ) as failures
      from envdata.chunk where run_id = r.run_id
    ) c
    where r.run_id = ${runId}`.execute(db);
  const run = rows[0];
  if (!run) return undefined;
  const gaps = await db
    .selectFrom('run_gap')
    .select(['next_from', 'gap_to', 'window_hours'])
    .where('run_id', '=', runId)
    .whereRef('next_from', '<', 'gap_to')
    .execute();
  const notYetDispatched = gaps.reduce(
    (n, g) => n + countWindows(g.next_from, g.gap_to, g.window_hours),
    0,
  );
  return {
    runId,
    kind: run.kind,
    status: run.status,
    createdAt: run.created_at,
    finishedAt: run.finished_at,
    errorCode: run.error_code,
    errorMessage: run.error_message,
    blockedDatasets: run.blocked_datasets,
    total: run.done + run.failed + run.in_flight + notYetDispatched,
    done: run.done,
    failed: run.failed,
    inFlight: run.in_flight,
    notYetDispatched,
    rows: Number(run.rows),
    calls: Number(run.calls),
    recordsQuarantined: Number(run.quarantined),
    unplaceableRecords: run.unplaceable,
    quarantinedHours: Number(run.quarantined_hours),
    missingHours: Number(run.missing),
    notCoveredHours: Number(run.not_covered),
    noDataHours: Number(run.no_data),
    refetching: run.refetching,
    setAside:
      run.status === 'planning' || run.status === 'running'
        ? []
        : await valuesSetAside(db, [runId]),
    failures: run.failures ?? {},
    waiting: ledgerWaiting({
      runId,
      status: run.status,
      reason: run.waiting_reason,
      until: run.waiting_until,
      now: run.now,
      frozenShapes: run.frozen_shapes ?? [],
    }),
  };
}

/** The ids of the most recent runs, newest first (`envdata status`). */
export async function recentRunIds(db: Kysely<Database>, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('run')
    .select('run_id')
    .orderBy('run_id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.run_id);
}
