import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { QUEUE_NAMES } from '../../src/queue/queue-names.js';
import { SyncScheduler } from '../../src/sync/sync-scheduler.js';
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
    const next = new Date(delayed[0]!.timestamp + (delayed[0]!.opts.delay ?? 0));
    expect(next.getUTCHours()).toBe(2);
    expect(next.getUTCMinutes()).toBe(0);
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
});
