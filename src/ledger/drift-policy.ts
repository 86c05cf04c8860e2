import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { DATASETS, type Dataset, type DriftPolicy } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import type { ConfigDriftPolicy, DRIFT_POLICY_DATASETS } from '../config/drift-policy.js';

// src/config keeps its own lists of datasets and policies (it imports nothing of envdata but its
// errors): this fails to compile when they part from src/types.ts's.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const listsAgree: [
  Same<(typeof DRIFT_POLICY_DATASETS)[number], Dataset>,
  Same<ConfigDriftPolicy, DriftPolicy>,
] = [true, true];
void listsAgree;

/**
 * The drift policy `dataset` follows now: the one envdata.yaml declared (`envdata apply` stores
 * it in `envdata.drift_policy`, so workers on every host read the same), else `fallback`, the
 * process's ENVDATA_DRIFT_POLICY. Read only for answers of a shape not accepted: rare.
 */
export async function readDriftPolicy(
  db: Kysely<Database>,
  dataset: Dataset,
  fallback: DriftPolicy,
): Promise<DriftPolicy> {
  const row = await db
    .selectFrom('drift_policy')
    .select('policy')
    .where('dataset', '=', dataset)
    .executeTakeFirst();
  return row?.policy ?? fallback;
}

/**
 * Stores the policies a declared file gives (`datasets.NAME.drift`), in `apply`'s transaction:
 * a dataset it gives none falls back to ENVDATA_DRIFT_POLICY again.
 */
export async function storeDriftPolicies(
  trx: Transaction<Database> | Kysely<Database>,
  declared: Readonly<Partial<Record<Dataset, DriftPolicy>>>,
  now = new Date(),
): Promise<void> {
  const rows = DATASETS.flatMap((dataset) => {
    const policy = declared[dataset];
    return policy === undefined ? [] : [{ dataset, policy, declared_at: now }];
  });
  const undeclared = DATASETS.filter((d) => declared[d] === undefined);
  if (undeclared.length > 0) {
    await trx.deleteFrom('drift_policy').where('dataset', 'in', undeclared).execute();
  }
  if (rows.length === 0) return;
  await trx
    .insertInto('drift_policy')
    .values(rows)
    .onConflict((oc) =>
      oc.column('dataset').doUpdateSet((eb) => ({
        policy: eb.ref('excluded.policy'),
        declared_at: sql`case when drift_policy.policy = excluded.policy
          then drift_policy.declared_at else excluded.declared_at end`,
      })),
    )
    .execute();
}

/**
 * The shape `digest`, not accepted, came to a dataset under `freeze`: from now on no chunk of
 * its dataset is dispatched or claimed (`frozenDataset`) until `envdata upstream accept`.
 */
export async function freezeOnShape(db: Kysely<Database>, digest: string): Promise<void> {
  await db
    .updateTable('upstream_shape')
    .set({ froze: true })
    .where('digest', '=', digest)
    .where('accepted_at', 'is', null)
    .where('froze', '=', false)
    .execute();
}

/**
 * True when the dataset `dataset` (an SQL expression of type `envdata.dataset`) is frozen: a
 * shape of it met under `freeze` is not accepted yet. The feeder dispatches none of its chunks
 * and a claim refuses them, so a frozen dataset costs no call.
 */
export function frozenDataset(dataset: RawBuilder<unknown>): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from envdata.upstream_shape fs
    where fs.dataset = ${dataset} and fs.froze and fs.accepted_at is null)`;
}
