import { DATASETS, type Dataset } from '../../types.js';

/**
 * An object with one key per dataset, in registry order: `{ pollen: value('pollen'), weather: … }`.
 * Documents key by every dataset, so that a consumer finds each key present (`null` where the doc
 * says so) rather than missing.
 */
export function byDataset<T>(value: (dataset: Dataset) => T): Record<Dataset, T> {
  // Object.fromEntries types its keys as string; DATASETS holds every Dataset, so all are there.
  return Object.fromEntries(DATASETS.map((d) => [d, value(d)])) as Record<Dataset, T>;
}
