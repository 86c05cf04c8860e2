import type { Kysely } from 'kysely';
import { readShareUnits, recordShareUnits } from '../ledger/share-unit.js';
import {
  resolveShareUnits,
  toldShareUnits,
  type ShareUnitVerdicts,
} from '../normalize/decide-share-unit.js';
import type { Dataset, ShareField, ShareUnits } from '../types.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';

/**
 * What answers taught of the unit each share field is written in, per dataset, source and
 * field: the fields an answer tells the unit of are `learn`ed, and a field that cannot tell
 * takes what `recall` gives.
 */
export interface ShareUnitMemory {
  recall(dataset: Dataset, source: AnswerSource): Promise<ShareUnits>;
  /** Returns the fields whose remembered unit this answer set (new, or changed). */
  learn(dataset: Dataset, source: AnswerSource, told: ShareUnits): Promise<readonly ShareField[]>;
}

/**
 * The memory kept in the ledger (`envdata.share_unit`), shared by every worker on every host:
 * `learn` writes what each answer told (one statement, writing only a unit that changed), so
 * the last answer that tells wins wherever it landed; `recall` reads the ledger (it serves only
 * answers with a field of 0s and 1s). No cache: another worker may have learned since.
 */
export function ledgerShareUnitMemory(db: Kysely<Database>): ShareUnitMemory {
  return {
    recall: (dataset, source) => readShareUnits(db, dataset, source),
    learn: (dataset, source, told) => recordShareUnits(db, dataset, source, told),
  };
}

/**
 * The unit to read each share field of an answer in, from what its values say (`verdicts`):
 * the unit a field tells (learned when `memory` is given); for a field that cannot tell, what
 * `memory` remembers for it; else none (its values other than 0 are set aside). A
 * contradictory field is never read in a remembered unit.
 */
export async function shareUnitsFor(
  memory: ShareUnitMemory | undefined,
  dataset: Dataset,
  source: AnswerSource,
  verdicts: ShareUnitVerdicts,
): Promise<ShareUnits> {
  await memory?.learn(dataset, source, toldShareUnits(verdicts));
  const needsMemory = Object.values(verdicts).includes('cannot-tell');
  const remembered = needsMemory && memory ? await memory.recall(dataset, source) : {};
  return resolveShareUnits(verdicts, remembered);
}
