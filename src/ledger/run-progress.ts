import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, RunKind, RunStatus } from '../warehouse/schema.js';
import { countWindows } from '../windows/tile-windows.js';
import { readRunRevisions, type DatasetRevisions } from './run-revisions.js';
import { valuesSetAside, type SetAsideGroup } from './values-set-aside.js';
import { withoutJit } from './without-jit.js';

export interface RunProgress {
  readonly runId: number;
  readonly kind: RunKind;
  readonly status: RunStatus;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly blockedDatasets: readonly string[];
  /**
   * Chunks of the plan in all: materialized ones (splits replaced by their halves), windows to
   * come and chunks dropped; `done + failed + inFlight + notYetDispatched + dropped`.
   */
  readonly total: number;
  /** Landed (or answered "no data" / "not covered"), folded ones included. */
  readonly done: number;
  /**
   * Of `done`, chunks that landed with hours the service never sent (`missingHours`), folded ones
   * included (`folded_missing_chunks`): the console's "missing upstream".
   */
  readonly missingUpstream: number;
  readonly failed: number;
  /** Made chunks not finished (pending, queued, running); of a cancelled run, running only. */
  readonly inFlight: number;
  /** Of `inFlight`, chunks held by a worker now. */
  readonly running: number;
  /** Windows of the plan not yet materialized as chunks (0 once the run is cancelled). */
  readonly notYetDispatched: number;
  /**
   * Chunks never to be fetched: those `envdata cancel` dropped and, of a cancelled run, the
   * windows of its plan never made chunks (0 for a run not cancelled).
   */
  readonly dropped: number;
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
  /**
   * By dataset (`DATASETS` order), the hours the run re-read (landed before) and, of those, the
   * hours whose values it revised (`readRunRevisions`).
   */
  readonly revisions: readonly DatasetRevisions[];
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
 * Where a run stands, from the ledger alone (`envdata status`, `--wait`, the console):
 * `readRunProgress` of one run.
 */
export async function runProgress(
  db: Kysely<Database>,
  runId: number,
): Promise<RunProgress | undefined> {
  return (await readRunProgress(db, [runId]))[0];
}

/**
 * Where the runs `runIds` stand, in that order (a run not in the ledger left out): the one read
 * model of progress, behind `envdata status` (text and `--json`), the `--wait` bar and the
 * console. Per run, the totals of chunks already folded into it plus its chunk rows, read in one
 * statement, and the windows of its plan not yet made chunks (`countWindows` of its open gaps).
 * A chunk that landed with hours missing upstream counts as such (`missingUpstream`) before and
 * after it is folded. Its re-read and revised hours by dataset (`readRunRevisions`) too.
 * `setAside: false` skips `valuesSetAside` (`[]`), a read per finished run.
 */
export async function readRunProgress(
  db: Kysely<Database>,
  runIds: readonly number[],
  options: { setAside?: boolean } = {},
): Promise<RunProgress[]> {
  if (runIds.length === 0) return [];
  return withoutJit(db, async (trx) => readIn(trx, [...runIds], options.setAside ?? true));
}

/** `readRunProgress` in one transaction (one snapshot). */
async function readIn(
  trx: Transaction<Database>,
  ids: number[],
  setAside: boolean,
): Promise<RunProgress[]> {
  const { rows } = await sql<{
    run_id: number;
    kind: RunKind;
    status: RunStatus;
    created_at: Date;
    finished_at: Date | null;
    error_code: string | null;
    error_message: string | null;
    blocked_datasets: string[];
    done: number;
    missing_chunks: number;
    failed: number;
    running: number;
    queued: number;
    dropped: number;
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
    select r.run_id, r.kind, r.status, r.created_at, r.finished_at, r.error_code,
      r.error_message, r.blocked_datasets,
      r.folded_chunks + c.done as done, r.folded_missing_chunks + c.missing_chunks as missing_chunks,
      c.failed, c.running, c.queued, c.refetching,
      coalesce((r.request->>'droppedChunks')::int, 0) as dropped,
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
        (count(*) filter (where status = 'done' and missing_hours > 0))::int as missing_chunks,
        (count(*) filter (where status = 'failed'))::int as failed,
        (count(*) filter (where status = 'running'))::int as running,
        (count(*) filter (where status in ('pending', 'queued')))::int as queued,
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
    where r.run_id = any(${ids}::int[])`.execute(trx);
  const gaps = await trx
    .selectFrom('run_gap')
    .select(['run_id', 'next_from', 'gap_to', 'window_hours'])
    .where('run_id', 'in', ids)
    .whereRef('next_from', '<', 'gap_to')
    .execute();
  const windows = new Map<number, number>();
  for (const g of gaps) {
    const n = countWindows(g.next_from, g.gap_to, g.window_hours);
    windows.set(g.run_id, (windows.get(g.run_id) ?? 0) + n);
  }
  const revisions = await readRunRevisions(trx, ids);
  const byId = new Map(rows.map((r) => [r.run_id, r]));
  const read: RunProgress[] = [];
  for (const runId of ids) {
    const run = byId.get(runId);
    if (!run) continue;
    // A cancelled run fetches nothing more: what it had not fetched is dropped, not to come.
    const cancelled = run.status === 'cancelled';
    const notFetched = run.queued + (windows.get(runId) ?? 0);
    const inFlight = run.running + (cancelled ? 0 : run.queued);
    const notYetDispatched = cancelled ? 0 : (windows.get(runId) ?? 0);
    const dropped = run.dropped + (cancelled ? notFetched : 0);
    read.push({
      runId,
      kind: run.kind,
      status: run.status,
      createdAt: run.created_at,
      finishedAt: run.finished_at,
      errorCode: run.error_code,
      errorMessage: run.error_message,
      blockedDatasets: run.blocked_datasets,
      total: run.done + run.failed + inFlight + notYetDispatched + dropped,
      done: run.done,
      missingUpstream: run.missing_chunks,
      failed: run.failed,
      inFlight,
      running: run.running,
      notYetDispatched,
      dropped,
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
        !setAside || run.status === 'planning' || run.status === 'running'
          ? []
          : await valuesSetAside(trx, [runId]),
      revisions: revisions.get(runId) ?? [],
      failures: run.failures ?? {},
      waiting: ledgerWaiting({
        runId,
        status: run.status,
        reason: run.waiting_reason,
        until: run.waiting_until,
        now: run.now,
        frozenShapes: run.frozen_shapes ?? [],
      }),
    });
  }
  return read;
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
