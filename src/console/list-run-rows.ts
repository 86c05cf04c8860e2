import { sql, type Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { ledgerWaiting, type RunProgress } from '../ledger/run-progress.js';
import { heldRunEtaMs } from '../planner/held-run-eta.js';
import type { Database, RunKind, RunStatus } from '../warehouse/schema.js';
import { withoutJit } from './without-jit.js';

/**
 * One run as the console's Runs page shows it: where its chunks stand, as the segments of a
 * stacked progress bar, and how fast it goes now.
 */
export interface RunRow extends Pick<
  RunProgress,
  | 'runId'
  | 'kind'
  | 'status'
  | 'createdAt'
  | 'finishedAt'
  | 'errorCode'
  | 'errorMessage'
  | 'total'
  | 'rows'
  | 'calls'
  | 'waiting'
> {
  /** Chunks by where they stand; their sum is `total`. */
  readonly chunks: {
    /** Landed in full (chunks already folded into the run's totals count here). */
    readonly done: number;
    /** Landed, but the service never sent some of their hours (missing upstream). */
    readonly missingUpstream: number;
    /** Held by a worker now. */
    readonly running: number;
    /** On the queue, or windows of the plan not yet made chunks. */
    readonly queued: number;
    readonly failed: number;
    /**
     * Never to be fetched: a cancelled run's chunks dropped by `envdata cancel` and the windows of
     * its plan never made chunks (0 for any other run, whose are `queued`).
     */
    readonly dropped: number;
  };
  /** Calls per second over the last minute (chunks finished in it). */
  readonly callsPerSecond: number;
  /**
   * Seconds left at the pace of the last five minutes, but while the run waits on a quota or
   * the budget at least its reset plus the work left (`heldRunEtaMs`); `null` when idle or finished.
   */
  readonly etaSeconds: number | null;
}

/** The last minute, for the call rate. */
const RATE_WINDOW_S = 60;
/** The last five minutes, for the pace behind the ETA. */
const PACE_WINDOW_S = 300;

/**
 * The most recent runs (newest first), or the one run `runId`, each with its chunks by state,
 * in one statement: per run, a count over its chunk rows (index `chunk_run_status`) and a sum
 * over its open gaps for the windows not yet made chunks.
 */
export async function listRunRows(
  db: Kysely<Database>,
  options: {
    limit: number;
    runId?: number | undefined;
    /** The quota and rate: a run held on a quota then has an ETA of at least its reset. */
    config?: Pick<Config, 'quota' | 'rateLimits'> | undefined;
  },
): Promise<RunRow[]> {
  const filter = options.runId === undefined ? sql`true` : sql`run_id = ${options.runId}`;
  const { rows } = await withoutJit(db, (trx) =>
    sql<{
      run_id: number;
      kind: RunKind;
      status: RunStatus;
      created_at: Date;
      finished_at: Date | null;
      error_code: string | null;
      error_message: string | null;
      done: number;
      missing: number;
      running: number;
      queued: number;
      failed: number;
      waiting: string;
      rows: string;
      calls: string;
      recent_calls: string;
      recent_chunks: number;
      rate_window: number;
      pace_window: number;
      waiting_reason: string | null;
      waiting_until: Date | null;
      dropped_chunks: number;
      now: Date;
    }>`
    with r as (
      select * from envdata.run where ${filter} order by run_id desc limit ${options.limit}
    )
    select r.run_id, r.kind, r.status, r.created_at, r.finished_at, r.error_code,
      r.error_message, r.waiting_reason, r.waiting_until, now() as now,
      coalesce((r.request->>'droppedChunks')::int, 0) as dropped_chunks,
      r.folded_chunks + c.done as done, c.missing, c.running, c.queued, c.failed,
      g.waiting::text as waiting,
      (r.folded_rows + c.rows)::text as rows, (r.folded_calls + c.calls)::text as calls,
      c.recent_calls::text as recent_calls, c.recent_chunks,
      least(${RATE_WINDOW_S}, greatest(1, extract(epoch from now() - r.created_at)))::float8
        as rate_window,
      least(${PACE_WINDOW_S}, greatest(1, extract(epoch from now() - r.created_at)))::float8
        as pace_window
    from r
    cross join lateral (
      select
        (count(*) filter (where status = 'done' and missing_hours = 0))::int as done,
        (count(*) filter (where status = 'done' and missing_hours > 0))::int as missing,
        (count(*) filter (where status = 'running'))::int as running,
        (count(*) filter (where status in ('pending', 'queued')))::int as queued,
        (count(*) filter (where status = 'failed'))::int as failed,
        coalesce(sum(rows_landed), 0) as rows, coalesce(sum(calls), 0) as calls,
        coalesce(sum(calls) filter (
          where finished_at > now() - make_interval(secs => ${RATE_WINDOW_S})), 0) as recent_calls,
        (count(*) filter (where status = 'done'
          and finished_at > now() - make_interval(secs => ${PACE_WINDOW_S})))::int as recent_chunks
      from envdata.chunk where run_id = r.run_id
    ) c
    cross join lateral (
      -- countWindows (src/windows/tile-windows.ts) of each open gap, in SQL.
      select coalesce(sum(
        floor((ceil(extract(epoch from gap_to) / 3600) - 1) / window_hours)
        - floor(floor(extract(epoch from next_from) / 3600) / window_hours) + 1), 0) as waiting
      from envdata.run_gap where run_id = r.run_id and next_from < gap_to
    ) g
    order by r.run_id desc`.execute(trx),
  );
  return rows.map((r) => {
    const notFetched = r.queued + Number(r.waiting);
    // A cancelled run fetches nothing more: what it had not fetched is dropped, not queued.
    const cancelled = r.status === 'cancelled';
    const queued = cancelled ? 0 : notFetched;
    const dropped = cancelled ? notFetched + r.dropped_chunks : 0;
    const chunks = {
      done: r.done,
      missingUpstream: r.missing,
      running: r.running,
      queued,
      failed: r.failed,
      dropped,
    };
    const left = queued + r.running;
    const pace = r.recent_chunks / r.pace_window;
    const open = r.status === 'running' || r.status === 'planning';
    const waiting = ledgerWaiting({
      runId: r.run_id,
      status: r.status,
      reason: r.waiting_reason,
      until: r.waiting_until,
      now: r.now,
    });
    const paceMs = open && left > 0 && pace > 0 ? (left / pace) * 1000 : undefined;
    const etaMs =
      open && options.config
        ? heldRunEtaMs(left, waiting, options.config, paceMs, r.now.getTime())
        : paceMs;
    return {
      runId: r.run_id,
      kind: r.kind,
      status: r.status,
      createdAt: r.created_at,
      finishedAt: r.finished_at,
      errorCode: r.error_code,
      errorMessage: r.error_message,
      chunks,
      total: r.done + r.missing + r.running + queued + r.failed + dropped,
      rows: Number(r.rows),
      calls: Number(r.calls),
      callsPerSecond: open ? Number(r.recent_calls) / r.rate_window : 0,
      etaSeconds: etaMs === undefined ? null : Math.round(etaMs / 1000),
      waiting,
    };
  });
}
