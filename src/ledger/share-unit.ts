import type { Kysely } from 'kysely';
import type { Dataset, ShareUnit } from '../types.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';

/**
 * The share unit `source` of `dataset` last answered in (`envdata.share_unit`), for an answer
 * that cannot tell its own; `undefined` when no answer has told it yet.
 */
export async function readShareUnit(
  db: Kysely<Database>,
  dataset: Dataset,
  source: AnswerSource,
): Promise<ShareUnit | undefined> {
  const row = await db
    .selectFrom('share_unit')
    .select('unit')
    .where('dataset', '=', dataset)
    .where('source', '=', source)
    .executeTakeFirst();
  return row?.unit;
}

/**
 * Remembers that an answer of `source` of `dataset` told its shares were in `unit`: the last
 * answer that tells wins. The row is written only when the unit changes, so answers that agree
 * with it cost one statement and no write.
 */
export async function recordShareUnit(
  db: Kysely<Database>,
  dataset: Dataset,
  source: AnswerSource,
  unit: ShareUnit,
): Promise<void> {
  await db
    .insertInto('share_unit')
    .values({ dataset, source, unit })
    .onConflict((oc) =>
      oc
        .columns(['dataset', 'source'])
        .doUpdateSet({ unit, updated_at: new Date() })
        .where('share_unit.unit', '<>', unit),
    )
    .execute();
}
