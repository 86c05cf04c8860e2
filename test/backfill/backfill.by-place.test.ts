import { describe, expect, it } from 'vitest';
import { insertLocation } from '../../src/locations/insert-location.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForRun } from '../harness/wait-for-run.js';

const fx = useBackfillFixture();

describe('a location registered by place', () => {
  it('is ingested through the pollen by-place endpoint when it asked for it; weather by coordinates', async () => {
    const paris = await insertLocation(fx.app.db, {
      name: 'Paris',
      lat: 48.8566,
      lng: 2.3522,
      countryCode: 'FR',
      place: 'Paris, France',
      ingestByPlace: true,
      registeredBy: 'place',
    });
    const { runId, estimate } = await fx.planBackfill({
      ...backfillRange('2024-06-02', '2024-06-06'),
      locations: [paris],
      now: new Date('2024-06-30T12:00:00Z'),
    });
    const worker = IngestWorker.start(fx.app, { concurrency: 2 });
    try {
      const progress = await waitForRun(fx.app.db, runId!);
      expect(progress).toMatchObject({ status: 'done', done: estimate.chunks, failed: 0 });
      expect(progress.rows).toBeGreaterThan(0);
    } finally {
      await worker.close();
    }
    const calls = fx.simulator.stats().byEndpoint;
    expect(calls['pollen-history-by-place']).toBe(2);
    expect(calls['pollen-history-by-lat-lng'] ?? 0).toBe(0);
    expect(calls['weather-history']).toBe(2);
  });
});
