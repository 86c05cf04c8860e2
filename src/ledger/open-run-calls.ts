import { sql, type Kysely, type RawBuilder } from 'kysely';
import { countWindows } from '../windows/tile-windows.js';
import type { Database } from '../warehouse/schema.js';

/** The calls unfinished runs still plan to make, and how many runs that is. */
export interface OpenRunCalls {
  /** Unfinished runs with a call still planned. */
  readonly runs: number;
  readonly calls: number;
}

/**
 * What the unfinished runs (planning, running or paused; a rebuild makes no call) will still ask
 * of the service: their chunks waiting or in flight, and the windows of their gaps not yet turned
 * into chunks, counted as `runProgress` counts them. A plan's budget check adds them to the
 * month's spending: money they will spend is not left for another plan. `exceptRunId` leaves out
 * the run the plan is (a backfill just started, or resumed).
 */
export async function openRunCalls(
  db: Kysely<Database>,
  exceptRunId?: number,
): Promise<OpenRunCalls> {
  const planned = await plannedCallsByRun(db, sql`r.run_id <> ${exceptRunId ?? -1}`);
  let runs = 0;
  let calls = 0;
  for (const n of planned.values()) {
    if (n > 0) runs += 1;
    calls += n;
  }
  return { runs, calls };
}

/**
 * The calls unfinished run `runId` still plans to make, counted as `openRunCalls` counts them:
 * what a quota-bound run's expected end is reckoned from. 0 for a finished run.
 */
export async function runCallsLeft(db: Kysely<Database>, runId: number): Promise<number> {
  return (await plannedCallsByRun(db, sql`r.run_id = ${runId}`)).get(runId) ?? 0;
}

/** Per unfinished run matching `which`: its chunks waiting or in flight, and its gaps' windows. */
async function plannedCallsByRun(
  db: Kysely<Database>,
  which: RawBuilder<unknown>,
): Promise<Map<number, number>> {
  const { rows } = await sql<{
    run_id: number;
    chunks: number;
    gaps: { from: string; to: string; hours: number }[] | null;
  }>`
    select r.run_id,
      (select count(*)::int from envdata.chunk k
        where k.run_id = r.run_id and k.status in ('pending', 'queued', 'running')) as chunks,
      (select json_agg(json_build_object('from', g.next_from, 'to', g.gap_to, 'hours', g.window_hours))
        from envdata.run_gap g where g.run_id = r.run_id and g.next_from < g.gap_to) as gaps
    from envdata.run r
    where r.status in ('planning', 'running', 'paused') and r.kind <> 'rebuild'
      and ${which}`.execute(db);
  return new Map(
    rows.map((row) => [
      row.run_id,
      row.chunks +
        (row.gaps ?? []).reduce(
          (n, g) => n + countWindows(new Date(g.from), new Date(g.to), g.hours),
          0,
        ),
    ]),
  );
}
