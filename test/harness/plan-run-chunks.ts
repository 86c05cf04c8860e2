import type { Kysely } from 'kysely';
import { createRunWithGaps } from '../../src/ledger/create-run-with-gaps.js';
import { materializeChunks } from '../../src/ledger/materialize-chunks.js';
import type { Dataset } from '../../src/types.js';
import type { Database } from '../../src/warehouse/schema.js';

/** What `planRunChunks` plans: one dataset at one location over `[from, to)`. */
export interface PlannedRunSpec {
  readonly dataset: Dataset;
  readonly locationId: number;
  readonly from: Date;
  readonly to: Date;
  readonly windowHours: number;
}

/**
 * A running backfill with one gap, every window of it turned into a `queued` chunk by the
 * feeder (`materializeChunks`), as a ledger test's starting rows. Returns the chunk ids in
 * window order. Throws when the feeder fed another run too: every earlier run of the file must
 * be fed out (or not running), so that a test's rows are only its own.
 */
export async function planRunChunks(
  db: Kysely<Database>,
  spec: PlannedRunSpec,
): Promise<{ runId: number; chunkIds: number[] }> {
  const runId = await createRunWithGaps(db, {
    kind: 'backfill',
    priority: 0,
    windowHours: spec.windowHours,
    gaps: [{ dataset: spec.dataset, locationId: spec.locationId, from: spec.from, to: spec.to }],
    request: { test: true },
  });
  const fed = await materializeChunks(db, 1_000, { recheckMs: 86_400_000 });
  if (fed.length === 0) throw new Error(`planRunChunks: the feeder made no chunk of run ${runId}`);
  const rows = await db
    .selectFrom('chunk')
    .select(['chunk_id', 'run_id'])
    .where(
      'chunk_id',
      'in',
      fed.map((c) => c.chunkId),
    )
    .orderBy('window_from')
    .execute();
  if (rows.length === 0 || rows.some((r) => r.run_id !== runId)) {
    throw new Error(`planRunChunks: the feeder fed more than run ${runId} (an earlier run open?)`);
  }
  return { runId, chunkIds: rows.map((r) => r.chunk_id) };
}
