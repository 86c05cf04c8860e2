import { Worker, type Job } from 'bullmq';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionStores } from '../../src/admission/admission-stores.js';
import { queueLimiter } from '../../src/admission/call-budget.js';
import { snapshotJob } from '../../jobs/snapshot-job.js';
import type { SnapshotJobData } from '../../jobs/snapshot-job.js';
import { createFetchSnapshotProcessor } from '../../src/ingest/fetch-snapshot-job.js';
import { Admission, type AdmissionPolicies } from '../../src/admission/admission.js';
import { CallPacer } from '../../src/admission/call-pacer.js';
import { QuotaGate } from '../../src/admission/quota-gate.js';
import { quotaPeriodsOf } from '../../src/admission/quota-usage.js';
import { ThrottleBackoff } from '../../src/admission/throttle-backoff.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { createServiceClient, type ServiceClient } from '../../src/service/service-client.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { startStubService } from '../harness/start-stub-service.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { formatRunSummary, runSucceeded } from '../../src/cli/watch-run.js';

const fx = useBackfillFixture({ requestLog: 100 });
let client: ServiceClient | undefined;
let worker: Worker<SnapshotJobData, number> | undefined;

afterEach(async () => {
  await worker?.close();
  await client?.close();
  fx.simulator.setOptions({ dailyQuota: null });
});

function addSnapshotJob(fetchedAt: Date, runId = 1, location = 0) {
  const job = snapshotJob(
    {
      runId,
      locationId: fx.locations[location]!.locationId,
      product: 'latest',
      dataset: 'weather',
      fetchedAt: fetchedAt.toISOString(),
    },
    fx.app.config.worker,
  );
  return fx.app.queues.queue<SnapshotJobData>(QUEUE_NAMES.ingest).add(job.name, job.data, job.opts);
}

/**
 * Runs the snapshot processor in a BullMQ worker on the fixture's queue, pausing every worker
 * the way `IngestWorker` does; `onPause` sees each pause before it is taken.
 */
function startSnapshotWorker(
  throttle: ThrottleBackoff,
  onPause: (ms: number) => void,
  apiKey = DEMO_API_KEY,
  baseUrl = fx.app.config.service.baseUrl,
  gates: Pick<AdmissionPolicies, 'pacer' | 'quota'> = {},
) {
  client = createServiceClient({ ...fx.app.config.service, apiKey, baseUrl });
  const admission = new Admission({
    ...gates,
    throttle,
    pauseAll: async (ms) => {
      onPause(ms);
      await worker!.rateLimit(ms);
      throw Worker.RateLimitError();
    },
  });
  const processor = createFetchSnapshotProcessor({
    db: fx.app.db,
    client,
    species: new SpeciesIds(),
    logger: fx.app.logger,
    speciesRisk: false,
    admission,
  });
  worker = fx.app.queues.worker<SnapshotJobData, number>(QUEUE_NAMES.ingest, processor, {
    limiter: queueLimiter(undefined),
  });
  return new Promise<{ job: Job<SnapshotJobData, number>; rows: number }>((resolve, reject) => {
    worker!.on('completed', (job, rows) => resolve({ job, rows }));
    worker!.on('failed', (_job, error) => reject(error));
  });
}

describe('the snapshot job, throttled without Retry-After', () => {
  it('pauses every worker with the shared backoff (doubling per burst), no attempt used, then stores the reading', async () => {
    // The first two calls are refused 429 "Too Many Requests" without Retry-After (a 429
    // "quota exceeded" is QUOTA_EXCEEDED instead, which waits for the quota's reset).
    fx.simulator.addFaultScripts('latest:error=429x2');
    fx.simulator.resetLimits();
    fx.simulator.resetStats();
    const pauses: number[] = [];
    const done = startSnapshotWorker(new ThrottleBackoff(() => 0.5), (ms) => {
      pauses.push(ms);
    });
    const berlin = fx.locations[0]!;
    const fetchedAt = new Date('2024-06-30T12:00:00Z');
    await addSnapshotJob(fetchedAt);

    const { job: finished, rows } = await done;
    // RATE_LIMITED's base, then doubled: the history job's policy (a flat 2 s before).
    expect(pauses).toEqual([1_000, 2_000]);
    // BullMQ counts the attempt that completed; the two pauses used none.
    expect(finished.attemptsMade).toBe(1);
    expect(rows).toBe(1);
    expect(fx.simulator.stats().byStatus).toEqual({ '200': 1, '429': 2 });
    const stored = await fx.app.db
      .selectFrom('weather_snapshot')
      .select(['product', 'fetched_at'])
      .where('location_id', '=', berlin.locationId)
      .execute();
    expect(stored).toEqual([{ product: 'latest', fetched_at: fetchedAt }]);
  });
});

describe('the snapshot job, refused', () => {
  it('fails at once on a refused key: one call, not one per attempt, nothing stored', async () => {
    fx.simulator.resetStats();
    const done = startSnapshotWorker(new ThrottleBackoff(), () => undefined, 'not-a-valid-key');
    const fetchedAt = new Date('2024-07-01T12:00:00Z');
    await addSnapshotJob(fetchedAt);

    await expect(done).rejects.toThrow(/key/i);
    expect(fx.app.config.worker.maxAttempts).toBeGreaterThan(1);
    expect(fx.simulator.stats().byStatus).toEqual({ '401': 1 });
    const stored = await fx.app.db
      .selectFrom('weather_snapshot')
      .select('product')
      .where('fetched_at', '=', fetchedAt)
      .execute();
    expect(stored).toEqual([]);
  });
});

describe('the snapshot job, shares', () => {
  it('reads a latest answer of whole percentages as the fractions a fraction answer gives, and remembers the unit per product', async () => {
    const stored = async (fetchedAt: Date) =>
      fx.app.db
        .selectFrom('weather_snapshot')
        .select(['humidity_fraction', 'cloud_cover_fraction', 'precip_probability_fraction'])
        .where('fetched_at', '=', fetchedAt)
        .executeTakeFirstOrThrow();
    const snapshotAt = async (fetchedAt: Date) => {
      const done = startSnapshotWorker(new ThrottleBackoff(), () => undefined);
      await addSnapshotJob(fetchedAt);
      await done;
      await worker?.close();
      await client?.close();
      worker = undefined;
      client = undefined;
      return stored(fetchedAt);
    };
    try {
      const asFractions = await snapshotAt(new Date('2024-07-02T12:00:00Z'));
      fx.simulator.setOptions({ legacyShapes: { percentages: true } });
      const asPercentages = await snapshotAt(new Date('2024-07-02T13:00:00Z'));
      expect(asFractions.humidity_fraction).toBeGreaterThan(0);
      expect(asPercentages).toEqual(asFractions);
    } finally {
      fx.simulator.setOptions({ legacyShapes: false });
    }
    const units = await fx.app.db
      .selectFrom('share_unit')
      .select(['dataset', 'source', 'field', 'unit'])
      .orderBy('field')
      .execute();
    // Per field; precipitation probability was 0 in both answers, which teaches nothing.
    expect(units).toEqual([
      { dataset: 'weather', source: 'latest', field: 'cloudCover', unit: 'percent' },
      { dataset: 'weather', source: 'latest', field: 'humidity', unit: 'percent' },
    ]);
  });
});

describe('the snapshot job, values set aside', () => {
  it('records the shares it sets aside with its sync run, which then does not succeed and names the command; a later reading that tells the unit fills them, with no call', async () => {
    // The live capture's shape: humidity 92 (a percentage) beside cloud cover 1, which reads as
    // 1 % and as 100 % alike; nothing remembered for the latest reading's cloud cover.
    const reading = (cloudCover: number, humidity: number) =>
      JSON.stringify({
        message: 'success',
        data: {
          time: 1719921600,
          summary: 'Overcast',
          icon: 'cloudy',
          temperature: 18.5,
          humidity,
          pressure: 1011,
          windSpeed: 2.1,
          cloudCover,
          precipIntensity: 0,
          precipProbability: 0,
        },
      });
    // Berlin's reading cannot tell cloud cover's unit; Brisbane's (0.45) tells a fraction.
    const stub = await startStubService((request) => ({
      status: 200,
      body: Number(request.query.get('lat')) > 0 ? reading(1, 92) : reading(0.45, 60),
    }));
    await sql`delete from envdata.share_unit`.execute(fx.app.db);
    const { run_id: runId } = await fx.app.db
      .insertInto('run')
      .values({ kind: 'sync', status: 'done' })
      .returning('run_id')
      .executeTakeFirstOrThrow();
    const fetchedAt = new Date('2024-07-03T12:00:00Z');
    const snapshot = async (location: number) => {
      const done = startSnapshotWorker(
        new ThrottleBackoff(),
        () => undefined,
        DEMO_API_KEY,
        stub.url,
      );
      await addSnapshotJob(fetchedAt, runId, location);
      await done;
      await worker?.close();
      await client?.close();
      worker = undefined;
      client = undefined;
    };
    const berlin = fx.locations[0]!.locationId;
    const shares = [
      'humidity_fraction',
      'cloud_cover_fraction',
      'precip_probability_fraction',
    ] as const;
    const storedOf = (table: 'weather_snapshot' | 'weather_snapshot_current') =>
      fx.app.db
        .selectFrom(table)
        .select(shares)
        .where('location_id', '=', berlin)
        .where('product', '=', 'latest')
        .where('fetched_at', '=', fetchedAt)
        .executeTakeFirstOrThrow();
    try {
      await snapshot(0);
      expect(await storedOf('weather_snapshot')).toEqual({
        humidity_fraction: 0.92,
        cloud_cover_fraction: null,
        precip_probability_fraction: 0,
      });
      expect(await storedOf('weather_snapshot_current')).toEqual({
        humidity_fraction: 0.92,
        cloud_cover_fraction: null,
        precip_probability_fraction: 0,
      });
      const progress = (await runProgress(fx.app.db, runId))!;
      expect(progress.setAside).toEqual([
        {
          kind: 'shareUnitUnknown',
          source: 'weather_latest',
          records: 1,
          hours: 1,
          fields: { cloudCover: 1 },
          command: 'envdata sync --now',
          when: 'for a new reading (one that tells the unit fills the stored ones)',
        },
      ]);
      expect(runSucceeded(progress)).toBe(false);
      expect(formatRunSummary(progress)).toContain(
        '\n  exit 1: 1 value(s) in 1 hour(s) set aside, not in the warehouse — weather_latest cloudCover 1 (share unit unknown): for a new reading (one that tells the unit fills the stored ones), run `envdata sync --now`',
      );

      // The same sync's reading of Brisbane tells cloud cover as a fraction: Berlin's 1 is 100 %.
      await snapshot(1);
    } finally {
      await stub.close();
    }
    expect(stub.requests).toHaveLength(2);
    const filled = {
      humidity_fraction: 0.92,
      cloud_cover_fraction: 1,
      precip_probability_fraction: 0,
    };
    expect(await storedOf('weather_snapshot')).toEqual(filled);
    expect(await storedOf('weather_snapshot_current')).toEqual(filled);
    const quarantined = await fx.app.db
      .selectFrom('quarantine')
      .select('reason')
      .where('run_id', '=', runId)
      .execute();
    expect(quarantined).toEqual([]);
    const progress = (await runProgress(fx.app.db, runId))!;
    expect(progress.setAside).toEqual([]);
    expect(runSucceeded(progress)).toBe(true);
  });
});

describe('the snapshot job under a quota and a paced rule', () => {
  it('counts its call in the quota day the call reaches the service, not the day it began to wait for its slot', async () => {
    // Quota days of 1 real second; a rule of 1 call in 3 s, whose call this process just made:
    // the job's call waits some 3 s for its slot, into a later quota day than it began in.
    const app = fx.newApp({
      ENVDATA_QUOTA: '1000/day',
      ENVDATA_SYNC_RESERVE: '0',
      ENVDATA_QUOTA_DAY_SECONDS: '1',
    });
    const quota = new QuotaGate(admissionStores(app.queues).quota, app.config.quota);
    const rule = { max: 1, durationMs: 3_000, label: '1/3s' };
    const pacer = CallPacer.for(admissionStores(app.queues).windows, rule)!;
    (await pacer.acquire()).answered();
    await sql`delete from envdata.quota_usage`.execute(app.db);
    fx.simulator.resetStats();
    const done = startSnapshotWorker(
      new ThrottleBackoff(),
      () => undefined,
      DEMO_API_KEY,
      fx.app.config.service.baseUrl,
      { pacer, quota },
    );
    await addSnapshotJob(new Date('2024-07-03T12:00:00Z'));
    await done;

    const requests = fx.simulator.requests();
    expect(requests).toHaveLength(1);
    const { at } = requests[0]!;
    const { rows } = await sql<{ period: string; used: number }>`
      select period, used from envdata.quota_usage where quota_window = 'day'`.execute(app.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.used).toBe(1);
    // Counted just before it went: in the day it arrived, or the one before when it went within
    // a moment of the day's end; never the day, seconds before, when it began to wait.
    const dayOf = (ms: number) => quotaPeriodsOf(app.config.quota, ms).day;
    expect([dayOf(at), dayOf(at - 200)]).toContain(rows[0]!.period);
  });
});
