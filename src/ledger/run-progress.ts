import { sql, type Kysely } from 'kysely';
import { countWindows } from '../planner/estimate-plan.js';
import type { Database, RunKind, RunStatus } from '../warehouse/schema.js';

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
  /** Failed chunks by error code. */
  readonly failures: Readonly<Record<string, number>>;
}

/** Where a run stands, from the ledger alone (`envdata status`, `--wait`). */
export async function runProgress(
  db: Kysely<Database>,
  runId: number,
): Promise<RunProgress | undefined> {
  const run = await db.selectFrom('run').selectAll().where('run_id', '=', runId).executeTakeFirst();
  if (!run) return undefined;
  const { rows: counts } = await sql<{
    status: string;
    error_code: string | null;
    n: number;
    rows: number;
    calls: number;
  }>`
    select status::text, case when status = 'failed' then error_code end as error_code,
      count(*)::int as n, coalesce(sum(rows_landed), 0)::int as rows, coalesce(sum(calls), 0)::int as calls
    from envdata.chunk where run_id = ${runId}
    group by 1, 2`.execute(db);
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
  let done = 0;
  let failed = 0;
  let inFlight = 0;
  let rows = 0;
  let calls = 0;
  const failures: Record<string, number> = {};
  for (const c of counts) {
    rows += c.rows;
    calls += c.calls;
    if (c.status === 'done') done += c.n;
    else if (c.status === 'failed') {
      failed += c.n;
      failures[c.error_code ?? 'UNKNOWN'] = (failures[c.error_code ?? 'UNKNOWN'] ?? 0) + c.n;
    } else if (c.status !== 'split') inFlight += c.n;
  }
  return {
    runId,
    kind: run.kind,
    status: run.status,
    createdAt: run.created_at,
    finishedAt: run.finished_at,
    errorCode: run.error_code,
    errorMessage: run.error_message,
    blockedDatasets: run.blocked_datasets,
    total: done + failed + inFlight + notYetDispatched,
    done,
    failed,
    inFlight,
    notYetDispatched,
    rows,
    calls,
    failures,
  };
}
