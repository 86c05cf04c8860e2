import { sql, type Kysely } from 'kysely';
import type { Logger } from '../logging/create-logger.js';
import { SET_ASIDE_LIST, SET_ASIDE_REASONS } from '../normalize/set-aside-reason.js';
import type { Dataset, ShareField } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { rebuildFromArchive } from './rebuild-from-archive.js';

/** The most archived answers one fill reads again; the next fill takes the rest. */
const FILL_LIMIT = 1_000;

/** Which set-aside shares to look for: of one run's chunks, of some fields. */
export interface FillScope {
  readonly runId?: number;
  readonly fields?: readonly ShareField[];
}

/**
 * Fills, from the raw archive and with no call, the history shares set aside because their
 * field's unit was unknown, for the fields whose unit the ledger now knows
 * (`envdata.share_unit`): the archived answers of the chunks whose quarantine names such a field
 * are landed again (`rebuildFromArchive`), which replaces their quarantine entries. What
 * `envdata rebuild` would do, done by the worker once the unit is told (and before a run
 * closes), so a run whose first answers could not tell a field ends with that field filled.
 * Returns the answers read again (0 when none waits, or no field named is known yet).
 *
 * Answers not archived (`ENVDATA_ARCHIVE_RAW=false`) cannot be read again: their values stay set
 * aside, listed by `status`.
 */
export async function fillSetAsideShares(
  db: Kysely<Database>,
  logger: Logger,
  scope: FillScope = {},
): Promise<number> {
  const known = await db
    .selectFrom('share_unit')
    .select(['dataset', 'field'])
    .where('source', '=', 'history')
    .$if(scope.fields !== undefined, (q) => q.where('field', 'in', scope.fields!))
    .execute();
  if (known.length === 0) return 0;
  const prefix = SET_ASIDE_REASONS.shareUnitUnknown;
  // The fields a reason names: `share unit unknown: humidity 1, cloudCover 1 not landed (…)`.
  const { rows } = await sql<{ chunk_id: string; dataset: Dataset }>`
    select distinct q.chunk_id, p.dataset
    from envdata.quarantine q
    join envdata.raw_payload p on p.chunk_id = q.chunk_id
    cross join lateral unnest(string_to_array(
      split_part(substr(q.reason, ${prefix.length + 2}), ${SET_ASIDE_LIST.end}, 1),
      ${SET_ASIDE_LIST.separator})) as item
    where q.reason like ${`${prefix}%`}
      and (p.dataset::text, split_part(item, ' ', 1)) in (
        select * from unnest(${known.map((k) => k.dataset)}::text[],
          ${known.map((k) => k.field)}::text[]))
      ${
        scope.runId === undefined
          ? sql``
          : sql`and q.chunk_id in (select chunk_id from envdata.chunk where run_id = ${scope.runId})`
      }
    order by q.chunk_id
    limit ${FILL_LIMIT}`.execute(db);
  let answers = 0;
  for (const dataset of new Set(rows.map((r) => r.dataset))) {
    const chunkIds = rows.filter((r) => r.dataset === dataset).map((r) => Number(r.chunk_id));
    const outcome = await rebuildFromArchive(db, { datasets: [dataset], chunkIds }, logger);
    logger.info(
      { dataset, answers: outcome.chunks, rowsWritten: outcome.rowsWritten, runId: scope.runId },
      'shares set aside for an unknown unit filled from the archive, the unit now known (0 calls)',
    );
    answers += outcome.chunks;
  }
  return answers;
}
