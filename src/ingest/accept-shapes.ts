import { sql } from 'kysely';
import type { Uses } from '../runtime/app-resources.js';
import { createFeeder } from '../dispatch/create-feeder.js';
import { acceptUpstreamShape } from '../ledger/accept-upstream-shape.js';
import { SET_ASIDE_REASONS } from '../normalize/set-aside-reason.js';
import { DATASETS } from '../types.js';
import { rebuildFromArchive } from '../landing/rebuild-from-archive.js';

/** What `envdata upstream accept` did. */
export interface AcceptedShapes {
  /** By digest: `unknown`, `accepted` (already), `newly`. */
  readonly shapes: Readonly<Record<string, 'unknown' | 'accepted' | 'newly'>>;
  /** Held answers landed again from the archive (no call). */
  readonly rebuiltAnswers: number;
  /** Hours whose values landed (no longer held). */
  readonly landedHours: number;
  /**
   * Held answers the archive does not keep (ENVDATA_ARCHIVE_RAW=false, or pruned): their
   * hours stay quarantined holes, fetched again by the next backfill over them.
   */
  readonly notArchived: number;
  /** Chunks of frozen datasets dispatched again (their runs go on). */
  readonly dispatched: number;
}

/**
 * `envdata upstream accept SHAPE…`: accepts each shape, lands the hours held under it
 * (`quarantine`, `freeze`) from the archive with no call (`rebuildFromArchive` over the chunks
 * of their quarantine entries, which the landing replaces), and, when a shape had frozen its
 * dataset, dispatches that dataset's waiting chunks again. A shape accepted already is landed
 * again too, so a second run finishes what an interrupted one began.
 */
export async function acceptShapes(
  app: Uses<'config' | 'db' | 'logger' | 'queues'>,
  digests: readonly string[],
): Promise<AcceptedShapes> {
  const { db } = app;
  const shapes: Record<string, 'unknown' | 'accepted' | 'newly'> = {};
  const froze = await db
    .selectFrom('upstream_shape')
    .select('digest')
    .where('digest', 'in', [...digests])
    .where('froze', '=', true)
    .where('accepted_at', 'is', null)
    .execute();
  for (const digest of digests) shapes[digest] = await acceptUpstreamShape(db, digest);
  const known = digests.filter((d) => shapes[d] !== 'unknown');
  const prefixes = known.map((d) => `${SET_ASIDE_REASONS.upstreamShapeHeld} ${d}`);
  const { rows: held } = await sql<{ chunk_id: number; archived: boolean; hours: number }>`
    select q.chunk_id, exists (select 1 from envdata.raw_payload p where p.chunk_id = q.chunk_id)
      as archived, count(distinct q.observed_at)::int as hours
    from envdata.quarantine q
    where q.reason like any(${prefixes.map((p) => `${p}%`)}::text[])
    group by q.chunk_id
    order by q.chunk_id`.execute(db);
  const archived = held.filter((h) => h.archived);
  const rebuilt =
    archived.length === 0
      ? { chunks: 0 }
      : await rebuildFromArchive(
          db,
          { datasets: [...DATASETS], chunkIds: archived.map((h) => h.chunk_id) },
          app.logger,
        );
  const unarchived = held.filter((h) => !h.archived).map((h) => h.chunk_id);
  if (unarchived.length > 0) {
    // Nothing to land them from: the entries go, the hours stay quarantined holes, which a
    // backfill over them fetches again.
    await db
      .deleteFrom('quarantine')
      .where('chunk_id', 'in', unarchived)
      .where((eb) => eb.or(prefixes.map((p) => eb('reason', 'like', `${p}%`))))
      .execute();
  }
  const dispatched = froze.length > 0 ? await createFeeder(app).redispatchAll() : 0;
  return {
    shapes,
    rebuiltAnswers: rebuilt.chunks,
    landedHours: archived.reduce((n, h) => n + h.hours, 0),
    notArchived: unarchived.length,
    dispatched,
  };
}
