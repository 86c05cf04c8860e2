import type { SnapshotProduct } from '../warehouse/schema.js';

/** A snapshot job: one latest reading or forecast of one location, for one sync. */
export interface SnapshotJobData {
  readonly runId: number;
  readonly locationId: number;
  readonly product: SnapshotProduct;
  readonly dataset: 'pollen' | 'weather';
  /** The sync's instant (ISO): every snapshot of one sync shares it. */
  readonly fetchedAt: string;
}

export const SNAPSHOT_JOB_NAME = 'snapshot';

/** Every product a sync fetches: latest readings and the three forecasts. */
export const SNAPSHOT_PRODUCTS: readonly {
  product: SnapshotProduct;
  dataset: 'pollen' | 'weather';
}[] = [
  { product: 'latest', dataset: 'pollen' },
  { product: 'latest', dataset: 'weather' },
  { product: 'forecast_48h', dataset: 'pollen' },
  { product: 'forecast_120h', dataset: 'pollen' },
  { product: 'forecast_72h', dataset: 'weather' },
];
