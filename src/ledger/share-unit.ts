import type { Kysely } from 'kysely';
import type { Dataset, ShareField, ShareUnit, ShareUnits } from '../types.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';

/**
 * The share unit each field of `source` of `dataset` last answered in (`envdata.share_unit`),
 * for answers whose values of a field cannot tell its unit; a field absent when no answer has
 * told it yet.
 */
export async function readShareUnits(
  db: Kysely<Database>,
  dataset: Dataset,
  source: AnswerSource,
): Promise<ShareUnits> {
  const rows = await db
    .selectFrom('share_unit')
    .select(['field', 'unit'])
    .where('dataset', '=', dataset)
    .where('source', '=', source)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.field, r.unit]));
}

/**
 * Remembers that an answer of `source` of `dataset` told `field` was written in `unit`: the
 * last answer that tells wins. The row is written only when the unit changes, so answers that
 * agree with it cost one statement and no write.
 */
export async function recordShareUnit(
  db: Kysely<Database>,
  dataset: Dataset,
  source: AnswerSource,
  field: ShareField,
  unit: ShareUnit,
): Promise<void> {
  await db
    .insertInto('share_unit')
    .values({ dataset, source, field, unit })
    .onConflict((oc) =>
      oc
        .columns(['dataset', 'source', 'field'])
        .doUpdateSet({ unit, updated_at: new Date() })
        .where('share_unit.unit', '<>', unit),
    )
    .execute();
}
