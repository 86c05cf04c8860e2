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
 * Remembers that an answer of `source` of `dataset` told each field of `units` was written in
 * that unit: the last answer that tells wins, on every host. One statement for all the fields;
 * a row is written only when its unit changes, so answers that agree with it write nothing.
 * Returns the fields whose unit it wrote (new, or changed).
 */
export async function recordShareUnits(
  db: Kysely<Database>,
  dataset: Dataset,
  source: AnswerSource,
  units: ShareUnits,
): Promise<readonly ShareField[]> {
  const rows = (Object.entries(units) as [ShareField, ShareUnit][]).map(([field, unit]) => ({
    dataset,
    source,
    field,
    unit,
  }));
  if (rows.length === 0) return [];
  const written = await db
    .insertInto('share_unit')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['dataset', 'source', 'field'])
        .doUpdateSet((eb) => ({ unit: eb.ref('excluded.unit'), updated_at: new Date() }))
        .whereRef('share_unit.unit', '<>', 'excluded.unit'),
    )
    .returning('field')
    .execute();
  return written.map((r) => r.field);
}
