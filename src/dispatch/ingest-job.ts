/** What an ingest job carries: only the chunk's id. Never a secret; the ledger has the rest. */
export interface IngestJobData {
  readonly chunkId: number;
}

export const INGEST_JOB_NAME = 'ingest-chunk';
