import type { Uses } from '../runtime/app-resources.js';
import { Housekeeping } from './housekeeping.js';

/** The app's housekeeping (chunk folding, snapshot and archive retention), configured from its config. */
export function createHousekeeping(
  app: Uses<'config' | 'db' | 'logger' | 'outages'>,
): Housekeeping {
  return new Housekeeping(
    app.db,
    {
      chunkRetentionMs: app.config.worker.chunkRetentionMs,
      snapshotRetentionMs: app.config.sync.snapshotRetentionMs,
      archiveRetentionDays: app.config.ingest.archiveRetentionDays,
    },
    app.logger.child({ component: 'housekeeping' }),
    app.outages,
  );
}
