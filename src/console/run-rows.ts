import { sql, type Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import type { RunProgress } from '../ledger/run-progress.js';
import { heldRunEtaMs } from '../planner/held-run-eta.js';
import type { Database } from '../warehouse/schema.js';

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
  /** Chunks by where they stand (`RunProgress` split for the bar); their sum is `total`. */
  readonly chunks: {
    /** Landed in full (chunks already folded into the run's totals count here). */
    readonly done: number;
    /** Landed, but the service never sent some of their hours (missing upstream), folded or not. */
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
 * The console's row of each run of `runs` (`readRunProgress`, the one read model of progress,
 * with the queue's holds): its chunks as the bar's segments, and its pace, read in one statement
 * over the chunks finished in the last five minutes (index `chunk_run_status`).
 */
export async function runRows(
  db: Kysely<Database>,
  runs: readonly RunProgress[],
  /** The quota and rate: a run held on a quota then has an ETA of at least its reset. */
  config?: Pick<Config, 'quota' | 'rateLimits'>,
): Promise<RunRow[]> {
  if (runs.length === 0) return [];
  const { rows } = await sql<{
    run_id: number;
    recent_calls: string;
    recent_chunks: number;
    rate_window: number;
    pace_window: number;
    now: Date;
  }>`
    select r.run_id, now() as now,
      coalesce(sum(c.calls) filter (
        where c.finished_at > now() - make_interval(secs => ${RATE_WINDOW_S})), 0)::text
        as recent_calls,
      (count(*) filter (where c.status = 'done'))::int as recent_chunks,
      least(${RATE_WINDOW_S}, greatest(1, extract(epoch from now() - r.created_at)))::float8
        as rate_window,
      least(${PACE_WINDOW_S}, greatest(1, extract(epoch from now() - r.created_at)))::float8
        as pace_window
    from envdata.run r
    left join envdata.chunk c on c.run_id = r.run_id
      and c.finished_at > now() - make_interval(secs => ${PACE_WINDOW_S})
    where r.run_id = any(${runs.map((p) => p.runId)}::int[])
    group by r.run_id`.execute(db);
  const paces = new Map(rows.map((r) => [r.run_id, r]));
  return runs.map((p) => {
    const r = paces.get(p.runId)!;
    const queued = p.inFlight - p.running + p.notYetDispatched;
    const left = queued + p.running;
    const pace = r.recent_chunks / r.pace_window;
    const open = p.status === 'running' || p.status === 'planning';
    const paceMs = open && left > 0 && pace > 0 ? (left / pace) * 1000 : undefined;
    const etaMs =
      open && config ? heldRunEtaMs(left, p.waiting, config, paceMs, r.now.getTime()) : paceMs;
    return {
      runId: p.runId,
      kind: p.kind,
      status: p.status,
      createdAt: p.createdAt,
      finishedAt: p.finishedAt,
      errorCode: p.errorCode,
      errorMessage: p.errorMessage,
      chunks: {
        done: p.done - p.missingUpstream,
        missingUpstream: p.missingUpstream,
        running: p.running,
        queued,
        failed: p.failed,
        dropped: p.dropped,
      },
      total: p.total,
      rows: p.rows,
      calls: p.calls,
      callsPerSecond: open ? Number(r.recent_calls) / r.rate_window : 0,
      etaSeconds: etaMs === undefined ? null : Math.round(etaMs / 1000),
      waiting: p.waiting,
    };
  });
}
