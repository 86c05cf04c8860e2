import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import type { Kysely } from 'kysely';
import { coerceError } from '../errors/coerce-error.js';
import type { Logger } from '../logging/create-logger.js';
import { parsePollenBody } from '../service/parse-pollen-body.js';
import { parseWeatherBody } from '../service/parse-weather-body.js';
import type { Dataset } from '../types.js';
import { FactWriter, type ChunkLanding } from './fact-writer.js';
import { refreshDailyRollups } from './refresh-daily-rollups.js';
import type { Database } from './schema.js';

const gunzip = promisify(gunzipCallback);

export interface RebuildFilter {
  readonly datasets: readonly Dataset[];
  readonly locationIds?: readonly number[];
  /** Chunks whose window overlaps [from, to). */
  readonly from?: Date;
  readonly to?: Date;
}

export interface RebuildOutcome {
  readonly chunks: number;
  readonly rows: number;
  readonly rowsWritten: number;
  readonly failed: readonly { chunkId: number; reason: string }[];
}

/**
 * Rebuilds fact rows from the raw payload archive, without calling the service: every done chunk
 * in the filter is parsed again from its archived body and landed again (idempotently), then the
 * daily rollups of the touched days are refreshed. Use it after a normalization fix.
 */
export async function rebuildFromArchive(
  db: Kysely<Database>,
  filter: RebuildFilter,
  logger: Logger,
  batchSize = 50,
): Promise<RebuildOutcome> {
  const log = logger.child({ component: 'rebuild' });
  const writer = new FactWriter(db, { archiveRaw: false });
  const failed: { chunkId: number; reason: string }[] = [];
  let chunks = 0;
  let rows = 0;
  let rowsWritten = 0;
  let after = 0;
  for (;;) {
    let query = db
      .selectFrom('chunk as c')
      .innerJoin('raw_payload as r', 'r.chunk_id', 'c.chunk_id')
      .select([
        'c.chunk_id',
        'c.dataset',
        'c.location_id',
        'c.window_from',
        'c.window_to',
        'c.attempts',
        'r.body',
        'r.fetched_at',
        'r.http_status',
      ])
      .where('c.status', '=', 'done')
      .where('c.dataset', 'in', filter.datasets)
      .where('c.chunk_id', '>', after)
      .orderBy('c.chunk_id')
      .limit(batchSize);
    if (filter.locationIds?.length) query = query.where('c.location_id', 'in', filter.locationIds);
    if (filter.from) query = query.where('c.window_to', '>', filter.from);
    if (filter.to) query = query.where('c.window_from', '<', filter.to);
    const batch = await query.execute();
    if (batch.length === 0) break;
    after = batch.at(-1)!.chunk_id;

    const landings: ChunkLanding[] = [];
    for (const row of batch) {
      try {
        const body = (await gunzip(row.body)).toString('utf8');
        const base = {
          chunkId: row.chunk_id,
          locationId: row.location_id,
          window: { from: row.window_from, to: row.window_to },
          outcome: 'rows' as const,
          complete: true,
          calls: 0,
          attempts: row.attempts,
          startedAt: row.fetched_at,
          httpStatus: row.http_status,
        };
        landings.push(
          row.dataset === 'pollen'
            ? { ...base, dataset: 'pollen', payload: parsePollenBody(body) }
            : { ...base, dataset: 'weather', payload: parseWeatherBody(body) },
        );
      } catch (thrown) {
        const reason = coerceError(thrown).message;
        failed.push({ chunkId: row.chunk_id, reason });
        log.warn({ chunkId: row.chunk_id, reason }, 'archived payload could not be parsed');
      }
    }
    const summary = await writer.land(landings);
    chunks += landings.length;
    rows += summary.results.reduce((n, r) => n + r.rows, 0);
    rowsWritten += summary.rowsWritten;
  }
  await refreshDailyRollups(db);
  log.info({ chunks, rows, rowsWritten, failed: failed.length }, 'rebuilt from archive');
  return { chunks, rows, rowsWritten, failed };
}
