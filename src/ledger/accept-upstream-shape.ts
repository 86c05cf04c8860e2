import type { Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/**
 * Accepts the shape `digest` (`envdata upstream accept`): from now on its answers are answers of
 * a known shape. Returns what it was: `unknown` when no shape has that digest, `accepted` when it
 * was accepted already (nothing changes), else `newly`.
 */
export async function acceptUpstreamShape(
  db: Kysely<Database>,
  digest: string,
  now = new Date(),
): Promise<'unknown' | 'accepted' | 'newly'> {
  const changed = await db
    .updateTable('upstream_shape')
    .set({ accepted_at: now })
    .where('digest', '=', digest)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  if (Number(changed.numUpdatedRows) > 0) return 'newly';
  const known = await db
    .selectFrom('upstream_shape')
    .select('digest')
    .where('digest', '=', digest)
    .executeTakeFirst();
  return known ? 'accepted' : 'unknown';
}
