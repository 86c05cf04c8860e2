import { sql, type Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { AnswerShape } from '../upstream/answer-shape.js';
import { describeChanges, noChanges, shapeChanges } from '../upstream/shape-changes.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';
import { recordNotification } from './record-notification.js';

/** The longest body kept as a shape's sample (`envdata.upstream_shape.sample_body`). */
export const SAMPLE_BODY_CHARS = 65_536;

/** An answer whose shape is not known yet to the process that received it. */
export interface SeenShape {
  readonly dataset: Dataset;
  readonly source: AnswerSource;
  readonly digest: string;
  readonly shape: AnswerShape;
  readonly seenAt: Date;
  /** History: the chunk whose answer it is (its body is archived under it). */
  readonly sampleChunkId?: number | undefined;
  /** The answer's body (cut at `SAMPLE_BODY_CHARS`). */
  readonly body: string;
}

/** What the ledger says of a shape. */
export interface ShapeStanding {
  /** Accepted: the baseline, a shape that only learned a unit, or accepted by a person. */
  readonly accepted: boolean;
  /** This call recorded it: it was new to every process. */
  readonly created: boolean;
}

/**
 * Records `seen` unless the ledger knows its digest already, and says whether it is accepted.
 * The first shape of an endpoint (`dataset`, `source`) is its baseline, accepted without a
 * word. A later new shape is an event: `upstream-changed` goes into the outbox in the same
 * transaction, naming what changed from the shape seen last (`shapeChanges`), unless the only
 * difference from an accepted shape is a share unit told for the first time (then it is
 * accepted as well, silently). An advisory lock per endpoint makes workers that meet the same
 * new shape at once record it (and its notification) once; the notification's key does too.
 *
 * @param consequence what happens to the answers of a shape not accepted, for the message
 */
export async function recordUpstreamShape(
  db: Kysely<Database>,
  seen: SeenShape,
  consequence: string,
): Promise<ShapeStanding> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('envdata.upstream_shape'), hashtext(${`${seen.dataset} ${seen.source}`}))`.execute(
      trx,
    );
    const known = await trx
      .selectFrom('upstream_shape')
      .select(['digest', 'shape', 'accepted_at'])
      .where('dataset', '=', seen.dataset)
      .where('source', '=', seen.source)
      .orderBy('first_seen_at', 'desc')
      .orderBy('digest')
      .execute();
    const same = known.find((k) => k.digest === seen.digest);
    if (same) return { accepted: same.accepted_at !== null, created: false };
    const baseline = known.length === 0;
    const learnsUnit = known.some(
      (k) => k.accepted_at !== null && noChanges(shapeChanges(k.shape as AnswerShape, seen.shape)),
    );
    const accepted = baseline || learnsUnit;
    await trx
      .insertInto('upstream_shape')
      .values({
        digest: seen.digest,
        dataset: seen.dataset,
        source: seen.source,
        shape: JSON.stringify(seen.shape),
        first_seen_at: seen.seenAt,
        last_seen_at: seen.seenAt,
        answers: 0,
        sample_chunk_id: seen.sampleChunkId ?? null,
        sample_body: seen.body.slice(0, SAMPLE_BODY_CHARS),
        baseline,
        accepted_at: accepted ? seen.seenAt : null,
      })
      .execute();
    if (!accepted) {
      const previous = known[0]!;
      await recordNotification(trx, {
        key: `upstream:${seen.digest}:new`,
        event: 'upstream-changed',
        details: {
          dataset: seen.dataset,
          source: seen.source,
          shape: seen.digest,
          previous: previous.digest,
          changes: describeChanges(shapeChanges(previous.shape as AnswerShape, seen.shape)),
          held: consequence,
          action: `envdata upstream (to see it), then envdata upstream accept ${seen.digest}`,
        },
      });
    }
    return { accepted, created: true };
  });
}

/** Whether the shape `digest` is accepted now (a person may have accepted it since). */
export async function isUpstreamShapeAccepted(
  db: Kysely<Database>,
  digest: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('upstream_shape')
    .select('accepted_at')
    .where('digest', '=', digest)
    .executeTakeFirst();
  return row !== undefined && row.accepted_at !== null;
}
