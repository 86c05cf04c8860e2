import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Folds chunks that finished more than `retentionMs` ago into their run's totals and deletes
 * them: what landed is in `coverage`, what a run did is in its totals (a chunk with hours missing
 * upstream counted as such, `folded_missing_chunks`; its re-read hours by dataset,
 * `folded_reread_hours`), so a finished 30-year
 * plan keeps kilobytes of ledger, not a row per request. Failed chunks stay (for `status RUN`
 * and `envdata retry`). One statement per batch: a run's figures are never counted twice or
 * lost, whichever processes fold at once. Returns the chunks folded.
 */
export async function foldDoneChunks(
  db: Kysely<Database>,
  retentionMs: number,
  batch = 10_000,
): Promise<number> {
  let folded = 0;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      with gone as (
        delete from envdata.chunk c
        where c.chunk_id in (
          select chunk_id from envdata.chunk
          where status in ('done', 'split') and run_id is not null
            and finished_at < now() - ${retentionMs} * interval '1 millisecond'
          limit ${batch})
        returning c.*
      ), sums as (
        select run_id, count(*) filter (where status = 'done') as chunks,
          count(*) filter (where status = 'done' and missing_hours > 0) as missing_chunks,
          sum(rows_landed) as rows, sum(calls) as calls, sum(rows_quarantined) as quarantined,
          sum(missing_hours) as missing, sum(quarantined_hours) as quarantined_hours,
          sum(not_covered_hours) as not_covered, sum(no_data_hours) as no_data, count(*) as n
        from gone group by run_id
      ), reread as (
        select run_id, dataset::text as dataset, sum(reread_hours) as hours
        from gone group by run_id, dataset having sum(reread_hours) > 0
      ), folded as (
        update envdata.run r set
          folded_chunks = folded_chunks + s.chunks,
          folded_missing_chunks = folded_missing_chunks + s.missing_chunks,
          folded_rows = folded_rows + s.rows,
          folded_calls = folded_calls + s.calls,
          folded_records_quarantined = folded_records_quarantined + s.quarantined,
          folded_missing_hours = folded_missing_hours + s.missing,
          folded_quarantined_hours = folded_quarantined_hours + s.quarantined_hours,
          folded_not_covered_hours = folded_not_covered_hours + s.not_covered,
          folded_no_data_hours = folded_no_data_hours + s.no_data,
          folded_reread_hours = folded_reread_hours || coalesce((
            select jsonb_object_agg(x.dataset,
              coalesce((r.folded_reread_hours->>x.dataset)::bigint, 0) + x.hours)
            from reread x where x.run_id = r.run_id), '{}')
        from sums s where r.run_id = s.run_id
      )
      select coalesce(sum(n), 0)::int as n from sums`.execute(db);
    const n = rows[0]?.n ?? 0;
    folded += n;
    if (n < batch) return folded;
  }
}
