/** What an ingest job carries: only the chunk's id. Never a secret; the ledger has the rest. */
export interface IngestJobData {
  readonly chunkId: number;
}

export const INGEST_JOB_NAME = 'ingest-chunk';

/** One job id per chunk, so dispatching a chunk twice is a no-op in BullMQ. */
export function ingestJobId(chunkId: number): string {
  return `chunk-${chunkId}`;
}
