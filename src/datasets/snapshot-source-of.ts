import type { ShareUnitVerdicts } from '../normalize/decide-share-unit.js';
import type { ParsedPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Dataset, ShareUnits } from '../types.js';
import type { QuarantinedRecord } from '../warehouse/fact-rows.js';
import type { SnapshotProduct } from '../warehouse/schema.js';
import type { SnapshotRows } from '../warehouse/fact-table.js';
import type { SnapshotRequest } from './dataset-definition.js';
import { datasetDefinition } from './registry.js';

/** One snapshot product of a dataset: how it is fetched and what rows its answer makes. */
export interface SnapshotFetch {
  fetch(client: ServiceClient, request: SnapshotRequest): Promise<ParsedPayload<unknown>>;
  /**
   * What the answer's shares say of their units (`DatasetDefinition.shareUnitOf`); `undefined`
   * for a dataset without shares.
   */
  shareUnitOf(payload: ParsedPayload<unknown>): ShareUnitVerdicts | undefined;
  toRows(payload: ParsedPayload<unknown>, remembered?: ShareUnits): readonly SnapshotRows[];
  /** The records whose values `toRows` sets aside, with the reason (`[]` when none). */
  setAside(payload: ParsedPayload<unknown>, remembered?: ShareUnits): readonly QuarantinedRecord[];
}

/** The product `product` of `dataset`, as its definition declares it. */
export function snapshotSourceOf(dataset: Dataset, product: SnapshotProduct): SnapshotFetch {
  const definition = datasetDefinition(dataset);
  const { snapshots } = definition;
  const source = snapshots.sources.find((s) => s.product === product);
  if (!source) throw new TypeError(`dataset ${dataset} has no snapshot product ${product}`);
  return {
    fetch: (client, request) => source.fetch(client, request),
    shareUnitOf: (payload) => definition.shareUnitOf?.(payload),
    toRows: (payload, remembered) => snapshots.toRows(payload, remembered),
    setAside: (payload, remembered) => snapshots.setAside?.(payload, remembered) ?? [],
  };
}
