import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** The answers of one shape a process received since it last counted them. */
export interface ShapeAnswers {
  readonly digest: string;
  readonly answers: number;
  readonly lastSeenAt: Date;
}

/**
 * Adds the answers each shape had to `envdata.upstream_shape` in one statement, whatever the
 * number of shapes: a worker counts in memory and calls this every few seconds, so counting
 * costs no write per answer.
 */
export async function countShapeAnswers(
  db: Kysely<Database>,
  counts: readonly ShapeAnswers[],
): Promise<void> {
  if (counts.length === 0) return;
  await sql`
    update envdata.upstream_shape s
    set answers = s.answers + c.answers, last_seen_at = greatest(s.last_seen_at, c.seen)
    from unnest(${counts.map((c) => c.digest)}::text[], ${counts.map((c) => c.answers)}::bigint[],
      ${counts.map((c) => c.lastSeenAt.toISOString())}::timestamptz[]) as c(digest, answers, seen)
    where s.digest = c.digest`.execute(db);
}
