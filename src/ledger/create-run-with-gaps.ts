import type { Kysely } from 'kysely';
import type { Database, RunKind } from '../warehouse/schema.js';
import type { Gap } from './find-gaps.js';
import { recordLineage } from './record-lineage.js';

/**
 * Writes a run and its gaps (each with its cursor at the start) in one transaction: the caller's
 * when `db` is one; with them, the run's lineage START (`recordLineage`). While tracing runs, the
 * run keeps the `traceparent` of the span planning it (`envdata.run.plan`): its chunks' traces
 * link to it, whoever enqueues them and when.
 */
export async function createRunWithGaps(
  db: Kysely<Database>,
  run: {
    readonly kind: RunKind;
    readonly priority: number;
    readonly windowHours: number;
    /** Size the chunks by the learned window (ENVDATA_HISTORY_WINDOW=auto). */
    readonly windowAuto?: boolean;
    readonly gaps: readonly Gap[];
    readonly request: Record<string, unknown>;
    /** Re-read what is covered inside the gaps (a sync's lookback). */
    readonly refetch?: boolean;
    /** The W3C `traceparent` of the span planning it (`envdata.run.plan`), its chunks' link. */
    readonly traceparent?: string | null;
  },
): Promise<number> {
  const write = async (trx: Kysely<Database>): Promise<number> => {
    const row = await trx
      .insertInto('run')
      .values({
        kind: run.kind,
        status: 'running',
        priority: run.priority,
        window_auto: run.windowAuto ?? false,
        request: JSON.stringify(run.request),
        traceparent: run.traceparent ?? null,
      })
      .returning('run_id')
      .executeTakeFirstOrThrow();
    for (let i = 0; i < run.gaps.length; i += 5_000) {
      await trx
        .insertInto('run_gap')
        .values(
          run.gaps.slice(i, i + 5_000).map((g) => ({
            run_id: row.run_id,
            dataset: g.dataset,
            location_id: g.locationId,
            gap_from: g.from,
            gap_to: g.to,
            next_from: g.from,
            window_hours: run.windowHours,
            refetch: run.refetch ?? false,
          })),
        )
        .execute();
    }
    await recordLineage(trx, row.run_id, 'START');
    return row.run_id;
  };
  return db.isTransaction ? write(db) : db.transaction().execute(write);
}
