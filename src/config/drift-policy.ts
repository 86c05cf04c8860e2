import { z } from 'zod';
import {
  DATASETS,
  DRIFT_POLICIES,
  type Dataset,
  type DriftPolicies,
  type DriftPolicy,
} from '../types.js';

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
