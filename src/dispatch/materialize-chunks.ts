import { sql, type Kysely } from 'kysely';
import { tileWindows } from '../planner/tile-windows.js';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/** A chunk to put on the queue; urgent ones (a sync) go before everything else. */
export interface DispatchChunk {
  readonly chunkId: number;
  readonly urgent: boolean;
}

/**
 * Turns up to `limit` windows of the open gaps of running runs into `queued` chunks, highest
 * priority run first, and advances the gaps' cursors, in one transaction. One feeder at a time
 * across all hosts (a transaction-scoped advisory lock); the others return nothing. A window the
 * ledger already holds is adopted unless it is done. Returns the ids to dispatch.
 */
export async function materializeChunks(
  db: Kysely<Database>,
  limit: number,
  options: { readonly urgentOnly?: boolean } = {},
): Promise<DispatchChunk[]> {
  if (limit <= 0) return [];
  return db.transaction().execute(async (trx) => {
    const { rows: lock } = await sql<{ ok: boolean }>`
      select pg_try_advisory_xact_lock(hashtext('envdata.feeder')) as ok`.execute(trx);
    if (!lock[0]?.ok) return [];
    const gaps = await sql<{
      run_gap_id: number;
      run_id: number;
      dataset: Dataset;
      location_id: number;
      next_from: Date;
      gap_to: Date;
      window_hours: number;
      priority: number;
      refetch: boolean;
    }>`
      select g.run_gap_id, g.run_id, g.dataset, g.location_id, g.next_from, g.gap_to, g.window_hours,
        r.priority,
        g.refetch
      from envdata.run_gap g join envdata.run r using (run_id)
      where r.status = 'running' and g.next_from < g.gap_to
        and (${options.urgentOnly ?? false} = false or r.priority > 0)
        and not (g.dataset::text = any(r.blocked_datasets))
      order by r.priority desc, g.run_id, g.run_gap_id
      limit 1000`.execute(trx);

    let remaining = limit;
    const chunks: {
      runId: number;
      dataset: Dataset;
      locationId: number;
      from: Date;
      to: Date;
      refetch: boolean;
    }[] = [];
    const cursors: { id: number; next: Date }[] = [];
    for (const gap of gaps.rows) {
      if (remaining <= 0) break;
      const windows = tileWindows(gap.next_from, gap.gap_to, gap.window_hours, remaining);
      remaining -= windows.length;
      for (const w of windows) {
        chunks.push({
          runId: gap.run_id,
          dataset: gap.dataset,
          locationId: gap.location_id,
          refetch: gap.refetch,
          ...w,
        });
      }
      cursors.push({ id: gap.run_gap_id, next: windows.at(-1)?.to ?? gap.gap_to });
    }
    if (chunks.length === 0) return [];

    const urgentRuns = new Set(gaps.rows.filter((g) => g.priority > 0).map((g) => g.run_id));
    const dispatch: DispatchChunk[] = [];
    for (const refetch of [false, true]) {
      const batch = chunks.filter((c) => c.refetch === refetch);
      if (batch.length === 0) continue;
      // A sync's lookback (refetch) re-reads done chunks for late corrections; a backfill never
      // touches what is done.
      const keepDone = refetch ? sql`false` : sql`c.status in ('done', 'split')`;
      const { rows } = await sql<{ chunk_id: number; status: string; run_id: number }>`
        insert into envdata.chunk as c (run_id, dataset, location_id, window_from, window_to, status)
        select u.run_id, u.dataset, u.location_id, u.window_from, u.window_to, 'queued'
        from unnest(${batch.map((c) => c.runId)}::int[], ${batch.map((c) => c.dataset)}::envdata.dataset[],
          ${batch.map((c) => c.locationId)}::int[], ${batch.map((c) => c.from)}::timestamptz[],
          ${batch.map((c) => c.to)}::timestamptz[])
          as u(run_id, dataset, location_id, window_from, window_to)
        on conflict (dataset, location_id, window_from, window_to) do update
          set run_id = excluded.run_id,
              status = case when ${keepDone} then c.status else 'queued' end
        returning c.chunk_id, c.status, c.run_id`.execute(trx);
      for (const r of rows) {
        if (r.status === 'queued')
          dispatch.push({ chunkId: r.chunk_id, urgent: urgentRuns.has(r.run_id) });
      }
    }
    await sql`
      update envdata.run_gap g set next_from = u.next_from
      from unnest(${cursors.map((c) => c.id)}::bigint[], ${cursors.map((c) => c.next)}::timestamptz[])
        as u(run_gap_id, next_from)
      where g.run_gap_id = u.run_gap_id`.execute(trx);
    return dispatch;
  });
}

/**
 * Chunks of running runs that the ledger says are waiting or in flight, oldest first: what to
 * dispatch again when Redis lost its jobs (a restart, a flush) or a worker died.
 */
export async function undispatchedChunks(
  db: Kysely<Database>,
  limit: number,
  afterChunkId = 0,
): Promise<DispatchChunk[]> {
  const rows = await db
    .selectFrom('chunk as c')
    .innerJoin('run as r', 'r.run_id', 'c.run_id')
    .select(['c.chunk_id', 'r.priority'])
    .where('r.status', '=', 'running')
    .where('c.status', 'in', ['pending', 'queued', 'running'])
    .where('c.chunk_id', '>', afterChunkId)
    .orderBy('c.chunk_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ chunkId: r.chunk_id, urgent: r.priority > 0 }));
}
