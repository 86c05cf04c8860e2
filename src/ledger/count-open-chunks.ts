import { sql, type Kysely } from 'kysely';
import type { ChunkStatus, Database } from '../warehouse/schema.js';

/**
 * The chunks of the runs that are not finished (planning, running, paused), by status: what is
 * left of the work in hand. Chunks of finished runs (and those folded away) are not counted, so
 * the count stays the size of the work in hand, not of the ledger's history. One index-only pass
 * over `chunk_run_status` per run.
 */
export async function countOpenChunks(
  db: Kysely<Database>,
): Promise<Partial<Record<ChunkStatus, number>>> {
  const { rows } = await sql<{ status: ChunkStatus; n: number }>`
    select c.status, count(*)::int as n
    from envdata.run r
    join envdata.chunk c on c.run_id = r.run_id
    where r.status in ('planning', 'running', 'paused')
    group by c.status`.execute(db);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}
