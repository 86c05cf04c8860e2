import { createHash } from 'node:crypto';
import type { AnswerShape } from './answer-shape.js';

/** How many hex digits of SHA-256 name a shape: short enough to type, far from colliding. */
export const SHAPE_DIGEST_LENGTH = 12;

/**
 * The name of a shape of one endpoint: the first hex digits of the SHA-256 of the dataset, the
 * source (`history` or a snapshot product) and the shape, written canonically (paths sorted, as
 * `answerShapeOf` returns them). What `envdata upstream accept SHAPE` takes.
 */
export function shapeDigest(dataset: string, source: string, shape: AnswerShape): string {
  const units = Object.entries(shape.units).sort(([a], [b]) => (a < b ? -1 : 1));
  const text = JSON.stringify([dataset, source, shape.envelope, shape.status, shape.paths, units]);
  return createHash('sha256').update(text).digest('hex').slice(0, SHAPE_DIGEST_LENGTH);
}
