import type { Kysely } from 'kysely';
import type { Dataset } from '../types.js';
import type { AnswerShape } from '../upstream/answer-shape.js';
import { shapeChanges, type ShapeChanges } from '../upstream/shape-changes.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';

/** A shape of one endpoint's answers, with how it differs from the one seen before it. */
export interface UpstreamShapeEntry {
  readonly digest: string;
  readonly dataset: Dataset;
  readonly source: AnswerSource;
  readonly shape: AnswerShape;
  readonly firstSeenAt: Date;
  readonly lastSeenAt: Date;
  readonly answers: number;
  readonly sampleChunkId: number | null;
  readonly baseline: boolean;
  readonly acceptedAt: Date | null;
  /** The shape of the same endpoint first seen just before this one; `null` for the first. */
  readonly previous: string | null;
  /** What changed from `previous`; `null` for the first. */
  readonly changes: ShapeChanges | null;
}

/**
 * Every shape the service's answers have had (`envdata.upstream_shape`), by endpoint (dataset,
 * then source), oldest first, each compared with the one first seen before it.
 */
export async function listUpstreamShapes(
  db: Kysely<Database>,
  filter: { readonly dataset?: Dataset } = {},
): Promise<UpstreamShapeEntry[]> {
  let query = db
    .selectFrom('upstream_shape')
    .select([
      'digest',
      'dataset',
      'source',
      'shape',
      'first_seen_at',
      'last_seen_at',
      'answers',
      'sample_chunk_id',
      'baseline',
      'accepted_at',
    ])
    .orderBy('dataset')
    .orderBy('source')
    .orderBy('first_seen_at')
    .orderBy('digest');
  if (filter.dataset !== undefined) query = query.where('dataset', '=', filter.dataset);
  const rows = await query.execute();
  return rows.map((row, i) => {
    const before = rows[i - 1];
    const previous =
      before && before.dataset === row.dataset && before.source === row.source ? before : null;
    const shape = row.shape as AnswerShape;
    return {
      digest: row.digest,
      dataset: row.dataset,
      source: row.source,
      shape,
      firstSeenAt: row.first_seen_at,
      lastSeenAt: row.last_seen_at,
      answers: Number(row.answers),
      sampleChunkId: row.sample_chunk_id === null ? null : Number(row.sample_chunk_id),
      baseline: row.baseline,
      acceptedAt: row.accepted_at,
      previous: previous?.digest ?? null,
      changes: previous ? shapeChanges(previous.shape as AnswerShape, shape) : null,
    };
  });
}
