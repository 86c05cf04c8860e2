import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Bodies looked at per transaction: each holds its rows' locks for one short delete. */
const BATCH = 200;

/**
 * Deletes the answer bodies (`envdata.answer_body`) past ENVDATA_ARCHIVE_RETENTION_DAYS: those
 * stored before now - `retentionDays` whose every answer (`envdata.answer`) was fetched before
 * then too. The answers stay, with their SHA-256: provenance is kept, the body is not.
 *
 * Oldest first, `BATCH` bodies per short transaction: the bodies are locked (`FOR UPDATE SKIP
 * LOCKED`: one a landing holds is left for the next pass), then deleted by a second statement
 * whose snapshot sees every answer a landing committed before the lock — and a landing that
 * comes after waits for the delete (`openLanding` holds the bodies it reuses `FOR KEY SHARE`),
 * finds the body gone and sends it again. Bodies kept for a recent answer are passed over (a
 * cursor), never read twice in a pass. Returns the bodies deleted.
 */
export async function pruneAnswerBodies(
  db: Kysely<Database>,
  retentionDays: number,
  batch = BATCH,
): Promise<number> {
  const { rows } = await sql<{ cutoff: Date }>`
    select now() - make_interval(days => ${retentionDays}) as cutoff`.execute(db);
  const cutoff = rows[0]!.cutoff;
  let after: { storedAt: Date; sha256: Buffer } | undefined;
  let deleted = 0;
  for (;;) {
    const step = await db.transaction().execute(async (trx) => {
      const { rows: locked } = await sql<{ body_sha256: Buffer; stored_at: Date }>`
        select body_sha256, stored_at from envdata.answer_body
        where stored_at < ${cutoff}
          ${after ? sql`and (stored_at, body_sha256) > (${after.storedAt}, ${after.sha256})` : sql``}
        order by stored_at, body_sha256
        limit ${batch}
        for update skip locked`.execute(trx);
      if (locked.length === 0) return { locked, n: 0 };
      const { rows: gone } = await sql<{ n: number }>`
        with gone as (
          delete from envdata.answer_body b
          where b.body_sha256 = any(${locked.map((r) => r.body_sha256)}::bytea[])
            and not exists (select 1 from envdata.answer a
              where a.body_sha256 = b.body_sha256 and a.fetched_at >= ${cutoff})
          returning 1)
        select count(*)::int as n from gone`.execute(trx);
      return { locked, n: gone[0]?.n ?? 0 };
    });
    deleted += step.n;
    const last = step.locked.at(-1);
    if (!last || step.locked.length < batch) return deleted;
    after = { storedAt: last.stored_at, sha256: last.body_sha256 };
  }
}
