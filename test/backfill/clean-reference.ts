import { expect } from 'vitest';
import type { QueueBackend } from '../../src/config/config.js';
import type { Environment } from '../../src/config/load-config.js';
import { planRun } from '../../src/planner/plan-run.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { useBackfillFixture, type BackfillRange } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { warehouseDigest, type WarehouseDigest } from './warehouse-digest.js';

export interface ReferenceRequest extends BackfillRange {
  /** Default: every location of the fixture (Berlin and Brisbane). */
  readonly locationNames?: readonly string[];
}

export interface CleanReference {
  /** The reference's own ENVDATA_QUEUE_PREFIX. */
  readonly queuePrefix: string;
  /**
   * Backfills `request` into the reference warehouse with no fault and returns the digest of
   * the whole reference warehouse (every request asked so far).
   */
  digestAfter(request: ReferenceRequest): Promise<WarehouseDigest>;
}

/**
 * A second warehouse in the same test file (its own database, queue prefix and fault-free
 * simulator, same locations) to compare a faulty run's warehouse with a clean run's. `env` and
 * `options` go to its `useBackfillFixture` (a Redis Cluster's REDIS_CLUSTER_NODES, say).
 */
export function useCleanReference(
  env: Environment = {},
  options: { queueBackend?: QueueBackend } = {},
): CleanReference {
  const fx = useBackfillFixture({}, env, options);
  return {
    get queuePrefix() {
      return fx.env.queuePrefix;
    },
    async digestAfter(request) {
      const locations = fx.locations.filter(
        (l) => request.locationNames === undefined || request.locationNames.includes(l.name),
      );
      const { runId } = await planRun(fx.app.db, { kind: 'backfill', ...request, locations }, []);
      const worker = IngestWorker.start(fx.app, { concurrency: 4 });
      try {
        const progress = await waitForRun(fx.app.db, runId!);
        expect(progress).toMatchObject({ status: 'done', failed: 0 });
      } finally {
        await worker.close();
      }
      expect(fx.simulator.stats().byStatus).toEqual({ '200': fx.simulator.stats().total });
      return warehouseDigest(fx.app.db);
    },
  };
}
