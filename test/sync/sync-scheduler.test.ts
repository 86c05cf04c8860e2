import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { SyncScheduler, upsertRacing } from '../../src/sync/sync-scheduler.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
const apps: App[] = [];
const newApp = () => {
  const app = createApp(env.config({ ENVDATA_SYNC_CRON: '0 2 * * *' }));
  apps.push(app);
  return app;
};

afterAll(async () => {
  for (const app of apps) await app.close();
});

async function scheduleState(app: App) {
  const queue = app.queues.queue(QUEUE_NAMES.sync);
  const schedulers = await queue.getJobSchedulers();
  const delayed = await queue.getDelayed();
  return { schedulers, delayed };
}

describe('the nightly sync schedule', () => {
  it('three schedulers starting at once leave exactly one schedule and one pending night', async () => {
    const schedulers = await Promise.all(
      [newApp(), newApp(), newApp()].map((app) => SyncScheduler.start(app)),
    );
    const { schedulers: found, delayed } = await scheduleState(apps[0]!);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ key: 'nightly-sync', pattern: '0 2 * * *', tz: 'UTC' });
    expect(delayed).toHaveLength(1);
    // The night the schedule names, 02:00 UTC, is the one job waiting for it. (Its added time
    // plus delay may fall a few milliseconds short of it: BullMQ's Postgres backend takes the two
    // from two clock readings.)
    const next = new Date(found[0]!.next!);
    expect(next.toISOString()).toMatch(/T02:00:00\.000Z$/);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(delayed[0]!.id).toBe(`repeat:nightly-sync:${next.getTime()}`);
    const due = delayed[0]!.timestamp + (delayed[0]!.opts.delay ?? 0);
    expect(Math.abs(due - next.getTime())).toBeLessThan(1_000);
    await Promise.all(schedulers.map((s) => s.close()));
  });

  it('restarting schedulers in a loop still leaves one schedule and one pending night', async () => {
    for (let i = 0; i < 5; i++) {
      const scheduler = await SyncScheduler.start(newApp());
      await scheduler.close();
    }
    const { schedulers, delayed } = await scheduleState(apps[0]!);
    expect(schedulers).toHaveLength(1);
    expect(delayed).toHaveLength(1);
  });

  it('many schedulers upserting a new schedule at the same moment all succeed and leave one', async () => {
    const app = newApp();
    const queue = app.queues.queue(QUEUE_NAMES.sync);
    // Many rounds of eight at once: on BullMQ's Postgres backend, the bare upsert loses this
    // race now and then ("job ID already exists"); each round is a schedule no one made yet.
    for (let round = 0; round < 12; round++) {
      const id = `race-${round}`;
      await Promise.all(
        Array.from({ length: 8 }, () =>
          upsertRacing(() =>
            queue.upsertJobScheduler(id, { pattern: '0 3 * * *', tz: 'UTC' }, { name: id }),
          ),
        ),
      );
    }
    const schedulers = await queue.getJobSchedulers();
    const delayed = await queue.getDelayed();
    for (let round = 0; round < 12; round++) {
      expect(schedulers.filter((s) => s.key === `race-${round}`)).toHaveLength(1);
      expect(delayed.filter((job) => job.id?.startsWith(`repeat:race-${round}:`))).toHaveLength(1);
    }
  });
});
