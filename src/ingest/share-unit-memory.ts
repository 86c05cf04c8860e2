import type { Kysely } from 'kysely';
import { readShareUnit, recordShareUnit } from '../ledger/share-unit.js';
import type { ShareUnitVerdict } from '../normalize/decide-share-unit.js';
import type { Dataset, ShareUnit } from '../types.js';
import type { AnswerSource, Database } from '../warehouse/schema.js';

/**
 * What answers taught of the unit their shares are written in, per dataset and source: an
 * answer that tells its unit is `learn`ed, and one that cannot tell takes what `recall` gives.
 */
export interface ShareUnitMemory {
  recall(dataset: Dataset, source: AnswerSource): Promise<ShareUnit | undefined>;
  learn(dataset: Dataset, source: AnswerSource, unit: ShareUnit): Promise<void>;
}

/**
 * The memory kept in the ledger (`envdata.share_unit`), shared by every worker. A unit learned
 * is written only when it differs from the one this memory last wrote or read for that source,
 * so a run of answers in one unit costs one statement, not one per chunk; `recall` always reads
 * the ledger (it serves only answers that cannot tell).
 */
export function ledgerShareUnitMemory(db: Kysely<Database>): ShareUnitMemory {
  const known = new Map<string, ShareUnit>();
  return {
    async recall(dataset, source) {
      const unit = await readShareUnit(db, dataset, source);
      if (unit === undefined) known.delete(`${dataset} ${source}`);
      else known.set(`${dataset} ${source}`, unit);
      return unit;
    },
    async learn(dataset, source, unit) {
      const key = `${dataset} ${source}`;
      if (known.get(key) === unit) return;
      await recordShareUnit(db, dataset, source, unit);
      known.set(key, unit);
    },
  };
}

/**
 * The unit to read an answer's shares in, from what they say (`verdict`): the unit they tell
 * (learned when `memory` is given); for an answer that cannot tell, what `memory` remembers;
 * else `undefined` (its shares are set aside). A contradictory answer is never read in a
 * remembered unit.
 */
export async function shareUnitFor(
  memory: ShareUnitMemory | undefined,
  dataset: Dataset,
  source: AnswerSource,
  verdict: ShareUnitVerdict,
): Promise<ShareUnit | undefined> {
  switch (verdict) {
    case 'fraction':
    case 'percent':
      await memory?.learn(dataset, source, verdict);
      return verdict;
    case 'cannot-tell':
      return memory?.recall(dataset, source);
    case 'contradictory':
      return undefined;
  }
}
