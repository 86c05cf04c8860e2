import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/** One failed chunk, as an operator looks for it. */
export interface FailedChunk {
  readonly chunkId: number;
  readonly location: string;
  readonly locationId: number;
  readonly dataset: Dataset;
  readonly from: Date;
  readonly to: Date;
  readonly attempts: number;
  /** The trace of its last attempt (OpenTelemetry); `null` when tracing was off or not sampled. */
  readonly traceId: string | null;
}

/** The failed chunks of a run that share an error code and message. */
export interface FailedChunkGroup {
  readonly code: string;
  readonly message: string;
  readonly chunks: number;
  /** The first few (by chunk id). */
  readonly examples: readonly FailedChunk[];
}

/**
 * A run's failed chunks grouped by error code and message, largest group first, each with the
 * first `examples` chunks (location, dataset, window) — what `status RUN` shows and `retry` fixes.
 */
export async function failedChunkGroups(
  db: Kysely<Database>,
  runId: number,
  examples = 3,
): Promise<FailedChunkGroup[]> {
  const { rows } = await sql<{
    code: string;
    message: string;
    chunks: number;
    chunk_id: number;
    location: string;
    location_id: number;
    dataset: Dataset;
    window_from: Date;
    window_to: Date;
    attempts: number;
    trace_id: string | null;
  }>`
    select f.code, f.message, f.chunks, f.chunk_id, l.name as location, f.location_id, f.dataset,
      f.window_from, f.window_to, f.attempts, f.trace_id
    from (
      select coalesce(c.error_code, 'UNKNOWN') as code, coalesce(c.error_message, '') as message,
        c.chunk_id, c.location_id, c.dataset, c.window_from, c.window_to, c.attempts, c.trace_id,
        (count(*) over w)::int as chunks, row_number() over (w order by c.chunk_id) as rn
      from envdata.chunk c
      where c.run_id = ${runId} and c.status = 'failed'
      window w as (partition by coalesce(c.error_code, 'UNKNOWN'), coalesce(c.error_message, ''))
    ) f
    join envdata.location l using (location_id)
    where f.rn <= ${examples}
    order by f.chunks desc, f.code, f.message, f.chunk_id`.execute(db);
  const groups = new Map<
    string,
    { code: string; message: string; chunks: number; examples: FailedChunk[] }
  >();
  for (const r of rows) {
    const key = `${r.code}\u0000${r.message}`;
    let group = groups.get(key);
    if (!group) {
      group = { code: r.code, message: r.message, chunks: r.chunks, examples: [] };
      groups.set(key, group);
    }
    group.examples.push({
      chunkId: r.chunk_id,
      location: r.location,
      locationId: r.location_id,
      dataset: r.dataset,
      from: r.window_from,
      to: r.window_to,
      attempts: r.attempts,
      traceId: r.trace_id,
    });
  }
  return [...groups.values()];
}
