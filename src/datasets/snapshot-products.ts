import type { Dataset, SnapshotProduct } from '../types.js';
import { DATASET_DEFINITIONS } from './registry.js';

/** Every product a sync fetches: each dataset's latest readings and forecasts, in registry order. */
export const SNAPSHOT_PRODUCTS: readonly {
  readonly product: SnapshotProduct;
  readonly dataset: Dataset;
}[] = DATASET_DEFINITIONS.flatMap((definition) =>
  definition.snapshots.sources.map(({ product }) => ({ product, dataset: definition.name })),
);
