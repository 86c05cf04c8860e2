import type { Kysely } from 'kysely';
import { readShareUnits, recordShareUnit } from '../ledger/share-unit.js';
import {
  resolveShareUnits,
  toldShareUnits,
  type ShareUnitVerdicts,
} from '../normalize/decide-share-unit.js';
import type { Dataset, ShareField, ShareUnit, ShareUnits } from '../types.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';

/**
 * What answers taught of the unit each share field is written in, per dataset, source and
 * field: a field an answer tells the unit of is `learn`ed, and one that cannot tell takes what
 * `recall` gives.
 */
export interface ShareUnitMemory {
  recall(dataset: Dataset, source: AnswerSource): Promise<ShareUnits>;
  learn(dataset: Dataset, source: AnswerSource, field: ShareField, unit: ShareUnit): Promise<void>;
}

/**
 * The memory kept in the ledger (`envdata.share_unit`), shared by every worker. A unit learned
 * is written only when it differs from the one this memory last wrote or read for that field,
 * so a run of answers in one unit costs no statement after the first; `recall` always reads
 * the ledger (it serves only answers with a field that cannot tell).
 */
export function ledgerShareUnitMemory(db: Kysely<Database>): ShareUnitMemory {
  const known = new Map<string, ShareUnit>();
  return {
    async recall(dataset, source) {
      const units = await readShareUnits(db, dataset, source);
      for (const key of [...known.keys()]) {
        if (key.startsWith(`${dataset} ${source} `)) known.delete(key);
      }
      for (const [field, unit] of Object.entries(units)) {
        known.set(`${dataset} ${source} ${field}`, unit);
      }
      return units;
    },
    async learn(dataset, source, field, unit) {
      const key = `${dataset} ${source} ${field}`;
      if (known.get(key) === unit) return;
      await recordShareUnit(db, dataset, source, field, unit);
      known.set(key, unit);
    },
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
  const told = toldShareUnits(verdicts);
  for (const [field, unit] of Object.entries(told) as [ShareField, ShareUnit][]) {
    await memory?.learn(dataset, source, field, unit);
  }
  const needsMemory = Object.values(verdicts).includes('cannot-tell');
  const remembered = needsMemory && memory ? await memory.recall(dataset, source) : {};
  return resolveShareUnits(verdicts, remembered);
}
