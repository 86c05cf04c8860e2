import { describe, expect, it } from 'vitest';
import { INGEST_JOB_PAYLOAD, chunkJob } from '../../jobs/ingest-chunk-job.js';
import { NIGHTLY_SYNC_JOB_PAYLOAD, nightlySyncJob } from '../../jobs/nightly-sync-job.js';
import { payloadProblem } from '../../jobs/payload-problem.js';
import { SNAPSHOT_JOB_PAYLOAD, snapshotJob } from '../../jobs/snapshot-job.js';

const RETRY = { maxAttempts: 3, retryBaseMs: 100 };

describe('payloadProblem', () => {
  it('finds none in the payloads the producers build', () => {
    const chunk = chunkJob({ chunkId: 12, urgent: false }, RETRY);
    const snapshot = snapshotJob(
      {
        runId: 3,
        locationId: 4,
        product: 'forecast_48h',
        dataset: 'pollen',
        fetchedAt: new Date().toISOString(),
      },
      RETRY,
    );
    const firing = nightlySyncJob();
    expect(payloadProblem(chunk, INGEST_JOB_PAYLOAD)).toBeUndefined();
    expect(payloadProblem(snapshot, SNAPSHOT_JOB_PAYLOAD)).toBeUndefined();
    expect(payloadProblem(firing, NIGHTLY_SYNC_JOB_PAYLOAD)).toBeUndefined();
  });

  it('names the job and each failing field, with what was expected and what came', () => {
    const job = (data: unknown) => ({ name: 'ingest-chunk', id: '7', data });
    expect(payloadProblem(job({ chunkId: '7' }), INGEST_JOB_PAYLOAD)).toBe(
      'job ingest-chunk 7: payload field "chunkId": expected number, received string',
    );
    expect(payloadProblem(job({}), INGEST_JOB_PAYLOAD)).toBe(
      'job ingest-chunk 7: payload field "chunkId": expected number, received undefined',
    );
    expect(payloadProblem(job({ chunkId: 1.5 }), INGEST_JOB_PAYLOAD)).toBe(
      'job ingest-chunk 7: payload field "chunkId": expected int, received 1.5',
    );
    expect(payloadProblem(job(null), INGEST_JOB_PAYLOAD)).toBe(
      'job ingest-chunk 7: payload: expected object, received null',
    );
    expect(
      payloadProblem(
        { name: 'snapshot', data: { runId: 1, locationId: 1, product: 'soon', dataset: 'pollen' } },
        SNAPSHOT_JOB_PAYLOAD,
      ),
    ).toBe(
      'job snapshot (no id): payload field "product": invalid option: expected one of ' +
        '"latest"|"forecast_48h"|"forecast_120h"|"forecast_72h"; ' +
        'payload field "fetchedAt": expected string, received undefined',
    );
  });
});
