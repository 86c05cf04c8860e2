import { z } from 'zod';

/**
 * The datasets and drift policies ENVDATA_DRIFT_POLICY names, as src/types.ts has them
 * (`DATASETS`, `DRIFT_POLICIES`): src/config imports nothing of envdata but its errors, so it
 * keeps its own list, and src/ledger/drift-policy.ts fails to compile if the two part.
 */
export const DRIFT_POLICY_DATASETS = ['pollen', 'weather'] as const;
const DRIFT_POLICIES = ['evolve', 'quarantine', 'freeze'] as const;
const DATASETS = DRIFT_POLICY_DATASETS;
type Dataset = (typeof DRIFT_POLICY_DATASETS)[number];
export type ConfigDriftPolicy = (typeof DRIFT_POLICIES)[number];
/** A drift policy for every dataset, as the environment sets it. */
export type DriftPolicies = Readonly<Record<Dataset, ConfigDriftPolicy>>;
type DriftPolicy = ConfigDriftPolicy;

const isPolicy = (v: string): v is DriftPolicy => (DRIFT_POLICIES as readonly string[]).includes(v);
const isDataset = (v: string): v is Dataset => (DATASETS as readonly string[]).includes(v);

/**
 * ENVDATA_DRIFT_POLICY: one policy for every dataset (`quarantine`), or `dataset=policy` items
 * separated by commas (`weather=quarantine,pollen=evolve`); a dataset not named is `evolve`.
 */
export const driftPolicySchema = z.string().transform((value, ctx): DriftPolicies => {
  const allowed = `${DRIFT_POLICIES.join(', ')}`;
  const text = value.trim();
  if (isPolicy(text)) return Object.fromEntries(DATASETS.map((d) => [d, text])) as DriftPolicies;
  const policies = Object.fromEntries(DATASETS.map((d) => [d, 'evolve'])) as Record<
    Dataset,
    DriftPolicy
  >;
  for (const item of text.split(',').map((i) => i.trim())) {
    const [dataset = '', policy = '', ...rest] = item.split('=').map((p) => p.trim());
    if (!isDataset(dataset) || !isPolicy(policy) || rest.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `"${item}" must be one of ${allowed} for every dataset, or DATASET=POLICY items separated by commas (datasets: ${DATASETS.join(', ')}; policies: ${allowed})`,
      });
      continue;
    }
    policies[dataset] = policy;
  }
  return policies;
});
