import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** The last export that finished, and how far the warehouse has moved since. */
export interface ExportStatus {
  readonly target: string;
  readonly finishedAt: Date;
  readonly partitionsWritten: number;
  readonly rowsWritten: number;
  /** Partitions changed by transactions its snapshot did not see. */
  readonly partitionsBehind: number;
  /** When the oldest of those changes was made; null when none. */
  readonly oldestChangeAt: Date | null;
}

/** The last finished export and its lag, or undefined when none ever finished. */
export async function readExportStatus(db: Kysely<Database>): Promise<ExportStatus | undefined> {
  const { rows } = await sql<{
    target: string;
    finished_at: Date;
    partitions_written: number;
    rows_written: string;
    behind: number;
    oldest: Date | null;
  }>`
    with last as (
      select * from envdata.export_run order by export_id desc limit 1
    )
    select last.target, last.finished_at, last.partitions_written, last.rows_written::text,
      (select count(distinct (m.dataset, m.year, m.month))::int from envdata.export_mark m
        where not pg_visible_in_snapshot(m.xid, last.snapshot::pg_snapshot)) as behind,
      (select min(m.marked_at) from envdata.export_mark m
        where not pg_visible_in_snapshot(m.xid, last.snapshot::pg_snapshot)) as oldest
    from last`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    target: row.target,
    finishedAt: row.finished_at,
    partitionsWritten: row.partitions_written,
    rowsWritten: Number(row.rows_written),
    partitionsBehind: row.behind,
    oldestChangeAt: row.oldest,
  };
}
