import type { Dataset } from '../types.js';
import { DATASET_DEFINITIONS } from './registry.js';

/** Where the service's history starts for each dataset (UTC), from the dataset definitions. */
export const HISTORY_STARTS: Readonly<Record<Dataset, Date>> = Object.freeze(
  Object.fromEntries(DATASET_DEFINITIONS.map((d) => [d.name, d.historyStart])) as Record<
    Dataset,
    Date
  >,
);
