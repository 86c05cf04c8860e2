import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { sql, type Kysely } from 'kysely';
import { readBody } from '../datasets/facts-of-body.js';
import { coerceError } from '../errors/coerce-error.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { recordRebuildLineage } from '../ledger/record-lineage.js';
import { readShareUnits } from '../ledger/share-unit.js';
import type { Logger } from '../logging/create-logger.js';
import type { Dataset, ShareUnits } from '../types.js';
import { FactWriter } from './fact-writer.js';
import type { ChunkLanding } from '../ledger/landing-decision.js';
import { refreshDailyRollups } from '../warehouse/refresh-daily-rollups.js';
import type { Database } from '../warehouse/schema.js';

const gunzip = promisify(gunzipCallback);

export interface RebuildFilter {
  readonly datasets: readonly Dataset[];
  readonly locationIds?: readonly number[];
  /** Chunks whose window overlaps [from, to). */
  readonly from?: Date;
  readonly to?: Date;
  /** Only the archived answers of these chunks (an accepted shape's held answers, shares set aside). */
  readonly chunkIds?: readonly number[];
}

export interface RebuildOptions {
  /** Archived answers read per batch (one landing transaction each). */
  readonly batchSize?: number;
  /**
   * Called with each batch's landings before they land, while the warehouse still holds what
   * they replace (`repairShareUnits` counts the values a batch changes).
   */
  readonly beforeLand?: (landings: readonly ChunkLanding[]) => Promise<void>;
}

export interface RebuildOutcome {
  readonly chunks: number;
  readonly rows: number;
  readonly rowsWritten: number;
  /** `rows` and `rowsWritten` by dataset (each dataset of the filter, 0 when none). */
  readonly byDataset: Readonly<Record<string, { rows: number; rowsWritten: number }>>;
  readonly failed: readonly { chunkId: number; reason: string }[];
}

/**
 * Rebuilds fact rows from the raw payload archive, without calling the service: every archived
 * answer in the filter is parsed and normalized again by its dataset's definition and landed
 * again (idempotently; coverage only grows), then the daily rollups of the touched days are
 * refreshed. Use it after a normalization fix.
 */
export async function rebuildFromArchive(
  db: Kysely<Database>,
  filter: RebuildFilter,
  logger: Logger,
  { batchSize = 50, beforeLand }: RebuildOptions = {},
): Promise<RebuildOutcome> {
  const log = logger.child({ component: 'rebuild' });
  const writer = new FactWriter(db, { archiveRaw: false });
  const failed: { chunkId: number; reason: string }[] = [];
  let chunks = 0;
  let rows = 0;
  let rowsWritten = 0;
  let after = 0;
  const byDataset: Record<string, { rows: number; rowsWritten: number }> = {};
  for (const dataset of filter.datasets) byDataset[dataset] = { rows: 0, rowsWritten: 0 };
  // Share units as ingestion reads them, field by field: a field an answer tells the unit of is
  // read in it and teaches it to the answers after it (in archive order); one that cannot tell
  // takes the last unit told for it, starting from the ledger's (`envdata.share_unit`).
  const shareUnits = new Map<Dataset, ShareUnits>();
  for (const dataset of filter.datasets) {
    shareUnits.set(dataset, await readShareUnits(db, dataset, 'history'));
  }
  for (;;) {
    // Archived answers carry their own location, dataset and window (their chunks may be
    // folded away); in id order, so a later answer for the same hours lands last.
    let query = db
      .selectFrom('raw_payload as r')
      .select([
        'r.chunk_id',
        'r.dataset',
        'r.location_id',
        'r.window_from',
        'r.window_to',
        'r.body',
        'r.fetched_at',
        'r.http_status',
        'r.body_sha256',
        'r.body_bytes',
        'r.endpoint',
      ])
      .where('r.dataset', 'in', filter.datasets)
      .where('r.chunk_id', '>', after)
      .orderBy('r.chunk_id')
      .limit(batchSize);
    if (filter.locationIds?.length) query = query.where('r.location_id', 'in', filter.locationIds);
    if (filter.chunkIds)
      query = query.where('r.chunk_id', '=', sql<number>`any(${filter.chunkIds}::bigint[])`);
    if (filter.from) query = query.where('r.window_to', '>', filter.from);
    if (filter.to) query = query.where('r.window_from', '<', filter.to);
    const batch = await query.execute();
    if (batch.length === 0) break;
    after = batch.at(-1)!.chunk_id;

    const landings: ChunkLanding[] = [];
    for (const row of batch) {
      try {
        const body = (await gunzip(row.body)).toString('utf8');
        const window = { from: row.window_from, to: row.window_to };
        const read = readBody(row.dataset, body, window, shareUnits.get(row.dataset));
        shareUnits.set(row.dataset, { ...shareUnits.get(row.dataset), ...read.shareUnits });
        landings.push({
          chunkId: row.chunk_id,
          runId: null,
          dataset: row.dataset,
          locationId: row.location_id,
          window,
          outcome: 'rows',
          complete: true,
          rebuild: true,
          expected: undefined,
          retries: { refetches: 0, refetchAttempts: 0, refetchDelayMs: 0, maxAttempts: 1 },
          calls: 0,
          attempts: 0,
          startedAt: row.fetched_at,
          httpStatus: row.http_status,
          facts: read.facts,
          // Already in the archive: landed again as a new answer of the same body.
          rawBody: undefined,
          archived: {
            digest: row.body_sha256,
            bodyBytes: row.body_bytes,
            endpoint: row.endpoint ?? undefined,
          },
        });
      } catch (thrown) {
        const reason = coerceError(thrown).message;
        failed.push({ chunkId: row.chunk_id, reason });
        log.warn({ chunkId: row.chunk_id, reason }, 'archived payload could not be parsed');
      }
    }
    await beforeLand?.(landings);
    chunks += landings.length;
    // One landing per dataset of the batch (their facts are in tables of their own): the rows
    // written are counted by dataset.
    for (const dataset of filter.datasets) {
      const ofDataset = landings.filter((l) => l.dataset === dataset);
      if (ofDataset.length === 0) continue;
      const summary = await writer.land(ofDataset);
      const landed = summary.results.reduce((n, r) => n + r.rows, 0);
      rows += landed;
      rowsWritten += summary.rowsWritten;
      byDataset[dataset]!.rows += landed;
      byDataset[dataset]!.rowsWritten += summary.rowsWritten;
    }
  }
  await refreshDailyRollups(db);
  log.info({ chunks, rows, rowsWritten, failed: failed.length }, 'rebuilt from archive');
  return { chunks, rows, rowsWritten, byDataset, failed };
}

/** Unreadable payloads named by chunk in a rebuild's FAIL event, at most. */
const CHUNKS_NAMED = 20;

/**
 * `rebuildFromArchive` as `envdata rebuild` runs it, telling OpenLineage (when a receiver was
 * seen, `recordRebuildLineage`): a START before it reads the archive, then a COMPLETE, or a FAIL
 * when archived payloads were unreadable or it threw, both with the random UUID of this
 * invocation as their run id. Its inputs and outputs are the archive and the rebuilt datasets'
 * views; the rows it landed again (and how many changed) by dataset.
 */
export async function rebuildWithLineage(
  db: Kysely<Database>,
  filter: RebuildFilter,
  logger: Logger,
): Promise<RebuildOutcome> {
  const rebuildId = randomUUID();
  const datasets = [...filter.datasets].sort();
  const base = {
    rebuildId,
    datasets,
    blockedDatasets: [],
    endpoints: [],
    foldedRows: 0,
    complete: [],
  };
  await recordRebuildLineage(db, {
    ...base,
    eventType: 'START',
    status: 'running',
    errorCode: null,
    errorMessage: null,
    failedChunks: {},
    rows: {},
  });
  let outcome: RebuildOutcome;
  try {
    outcome = await rebuildFromArchive(db, filter, logger);
  } catch (thrown) {
    const error = coerceError(thrown);
    await recordRebuildLineage(db, {
      ...base,
      eventType: 'FAIL',
      status: 'failed',
      errorCode: error instanceof EnvdataError ? error.code : 'INTERNAL',
      errorMessage: error.message,
      failedChunks: {},
      rows: {},
    }).catch((recording: unknown) => {
      logger.warn({ err: coerceError(recording) }, 'could not record the rebuild’s lineage');
    });
    throw thrown;
  }
  const failed = outcome.failed.length;
  const named = outcome.failed.slice(0, CHUNKS_NAMED).map((f) => f.chunkId);
  await recordRebuildLineage(db, {
    ...base,
    eventType: failed > 0 ? 'FAIL' : 'COMPLETE',
    status: failed > 0 ? 'failed' : 'done',
    errorCode: failed > 0 ? 'MALFORMED_RESPONSE' : null,
    errorMessage:
      failed > 0
        ? `${failed} archived payload(s) unreadable (chunk${failed > 1 ? 's' : ''} ${named.join(', ')}${failed > named.length ? ', …' : ''})`
        : null,
    failedChunks: failed > 0 ? { MALFORMED_RESPONSE: failed } : {},
    rows: Object.fromEntries(datasets.map((d) => [d, outcome.byDataset[d]?.rows ?? 0])),
    rowsChanged: Object.fromEntries(
      datasets.map((d) => [d, outcome.byDataset[d]?.rowsWritten ?? 0]),
    ),
  });
  return outcome;
}
