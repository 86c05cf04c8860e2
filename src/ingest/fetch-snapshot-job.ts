import type { Job } from 'bullmq';
import type { Kysely } from 'kysely';
import { snapshotSourceOf } from '../datasets/snapshot-source-of.js';
import type { SnapshotJobData } from '../dispatch/snapshot-job.js';
import type { Logger } from '../logging/create-logger.js';
import type { ParsedPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import { isServiceError } from '../service/service-error.js';
import type { Database } from '../warehouse/schema.js';
import type { SpeciesIds } from '../warehouse/species-ids.js';
import { writeSnapshot } from '../warehouse/write-snapshot.js';

export interface FetchSnapshotDeps {
  readonly db: Kysely<Database>;
  readonly client: ServiceClient;
  readonly species: SpeciesIds;
  readonly logger: Logger;
  readonly speciesRisk: boolean;
  readonly pauseAll: (ms: number) => Promise<never>;
}

/**
 * The snapshot job of a sync: one latest reading or forecast for one location, stored with the
 * sync's instant. Rate limits pause every worker like for history; "no data" stores nothing;
 * other errors retry through BullMQ's attempts and backoff.
 */
export function createFetchSnapshotProcessor(deps: FetchSnapshotDeps) {
  const log = deps.logger.child({ component: 'snapshot' });
  return async (job: Job<SnapshotJobData>): Promise<number> => {
    const { locationId, product, dataset } = job.data;
    const location = await deps.db
      .selectFrom('location')
      .select(['lat', 'lng'])
      .where('location_id', '=', locationId)
      .executeTakeFirst();
    if (!location) return 0;
    const source = snapshotSourceOf(dataset, product);
    let payload: ParsedPayload<unknown>;
    try {
      payload = await source.fetch(deps.client, {
        location,
        options: { speciesRisk: deps.speciesRisk },
      });
    } catch (error) {
      if (isServiceError(error, 'NO_DATA') || isServiceError(error, 'NOT_COVERED')) return 0;
      if (isServiceError(error, 'RATE_LIMITED') || isServiceError(error, 'QUOTA_EXCEEDED')) {
        return deps.pauseAll(
          error.retryAfterMs && error.retryAfterMs > 0 ? error.retryAfterMs : 2_000,
        );
      }
      log.warn(
        { locationId, product, dataset, code: (error as { code?: string }).code },
        'snapshot failed',
      );
      throw error;
    }
    return writeSnapshot(
      deps.db,
      deps.species,
      { locationId, product, fetchedAt: new Date(job.data.fetchedAt) },
      source.toRows(payload),
    );
  };
}
