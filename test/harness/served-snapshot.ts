import type { App } from '../../src/app.js';
import { snapshotSourceOf } from '../../src/datasets/snapshot-source-of.js';
import type { Location } from '../../src/locations/location.js';
import type { Dataset, SnapshotProduct } from '../../src/types.js';
import type { FactRow } from '../../src/warehouse/fact-rows.js';

/**
 * The rows of `table` the simulator serves now for `product` at `location`, asked again through
 * the app's client and read as a sync fetching at `fetchedAt` would (a stampless latest reading
 * is stamped with its hour). Throws when the answer has a record the parser rejects: the tests
 * compare what was served with what was stored, record for record.
 */
export async function servedSnapshot<Row extends FactRow>(
  app: App,
  served: {
    readonly dataset: Dataset;
    readonly product: SnapshotProduct;
    readonly location: Location;
    readonly table: string;
    readonly fetchedAt: Date;
  },
): Promise<Row[]> {
  const source = snapshotSourceOf(served.dataset, served.product);
  const payload = await source.fetch(app.serviceClient, {
    location: served.location,
    options: { speciesRisk: app.config.ingest.speciesRisk },
    fetchedAt: served.fetchedAt,
  });
  if (payload.rejected.length > 0) {
    throw new Error(
      `the simulator's ${served.dataset} ${served.product} answer had rejected records: ${JSON.stringify(payload.rejected)}`,
    );
  }
  const rows = source.toRows(payload).find((t) => t.table.name === served.table)?.rows ?? [];
  return rows as unknown as Row[];
}
