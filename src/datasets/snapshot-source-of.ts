import type { ParsedPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import type { ShareUnit } from '../types.js';
import type { SnapshotProduct } from '../warehouse/schema.js';
import type { SnapshotRows } from '../warehouse/write-snapshot.js';
import type { SnapshotRequest } from './dataset-definition.js';
import { datasetDefinition, type Dataset } from './registry.js';

/** One snapshot product of a dataset: how it is fetched and what rows its answer makes. */
export interface SnapshotFetch {
  fetch(client: ServiceClient, request: SnapshotRequest): Promise<ParsedPayload<unknown>>;
  /** Whether its answers carry shares, whose unit is decided per answer. */
  readonly hasShares: boolean;
  /** The share unit the answer tells by itself (`DatasetDefinition.shareUnitOf`). */
  shareUnitOf(payload: ParsedPayload<unknown>): ShareUnit | undefined;
  toRows(payload: ParsedPayload<unknown>, remembered?: ShareUnit): readonly SnapshotRows[];
}

/** The product `product` of `dataset`, as its definition declares it. */
export function snapshotSourceOf(dataset: Dataset, product: SnapshotProduct): SnapshotFetch {
  const definition = datasetDefinition(dataset);
  const { snapshots } = definition;
  const source = snapshots.sources.find((s) => s.product === product);
  if (!source) throw new TypeError(`dataset ${dataset} has no snapshot product ${product}`);
  return {
    fetch: (client, request) => source.fetch(client, request),
    hasShares: definition.shareUnitOf !== undefined,
    shareUnitOf: (payload) => definition.shareUnitOf?.(payload),
    toRows: (payload, remembered) => snapshots.toRows(payload, remembered),
  };
}
