import { DATASET_DEFINITIONS } from '../datasets/registry.js';
import type { Dataset } from '../types.js';
import type { SnapshotProduct } from '../warehouse/schema.js';

/** A snapshot job: one latest reading or forecast of one location, for one sync. */
export interface SnapshotJobData {
  readonly runId: number;
  readonly locationId: number;
  readonly product: SnapshotProduct;
  readonly dataset: Dataset;
  /** The sync's instant (ISO): every snapshot of one sync shares it. */
  readonly fetchedAt: string;
}

export const SNAPSHOT_JOB_NAME = 'snapshot';

/** Every product a sync fetches: each dataset's latest readings and forecasts, in registry order. */
export const SNAPSHOT_PRODUCTS: readonly {
  readonly product: SnapshotProduct;
  readonly dataset: Dataset;
}[] = DATASET_DEFINITIONS.flatMap((definition) =>
  definition.snapshots.sources.map(({ product }) => ({ product, dataset: definition.name })),
);
