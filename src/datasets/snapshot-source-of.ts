import type { ParsedPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import type { SnapshotProduct } from '../warehouse/schema.js';
import type { SnapshotRows } from '../warehouse/write-snapshot.js';
import type { SnapshotRequest } from './dataset-definition.js';
import { datasetDefinition, type Dataset } from './registry.js';

/** One snapshot product of a dataset: how it is fetched and what rows its answer makes. */
export interface SnapshotFetch {
  fetch(client: ServiceClient, request: SnapshotRequest): Promise<ParsedPayload<unknown>>;
  toRows(payload: ParsedPayload<unknown>): readonly SnapshotRows[];
}

/** The product `product` of `dataset`, as its definition declares it. */
export function snapshotSourceOf(dataset: Dataset, product: SnapshotProduct): SnapshotFetch {
  const { snapshots } = datasetDefinition(dataset);
  const source = snapshots.sources.find((s) => s.product === product);
  if (!source) throw new TypeError(`dataset ${dataset} has no snapshot product ${product}`);
  return {
    fetch: (client, request) => source.fetch(client, request),
    toRows: (payload) => snapshots.toRows(payload),
  };
}
