import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { recordNotification } from '../../src/ledger/record-notification.js';
import { checkAlerts } from '../../src/notify/check-alerts.js';
import { cancelRunAndJobs } from '../../src/runs/control-run.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { startAlertReceiver, type AlertReceiver } from '../harness/alert-receiver.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { configError } from '../harness/config-error.js';
import { waitForRun } from '../harness/wait-for-run.js';

const T0 = new Date('2024-06-10T02:00:00Z');
/** Calls a quota day grants in the quota-bound test: 2 of the run's 8. */
const PER_DAY = 2;

const fx = useBackfillFixture({ now: T0.toISOString() });
let receiver: AlertReceiver;
let app: App;

beforeAll(async () => {
  receiver = await startAlertReceiver();
  app = fx.newApp({
    ENVDATA_NOTIFY_URL: receiver.url,
    ENVDATA_NOTIFY_FORMAT: 'json',
    // Everything but `key-refused`: the filter's test records one, which must not be posted.
    ENVDATA_NOTIFY_EVENTS:
      'run-ended,freshness-breached,freshness-recovered,run-quota-bound,quota-reached,quota-freed',
  });
  // Delivery only: the test runs the periodic checks itself, at the simulator's time.
  await app.start({ notifications: { pollMs: 50, checkMs: 0 } });
});

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

async function events(): Promise<{ event: string; dedupe_key: string }[]> {
  return app.db
    .selectFrom('notification')
    .select(['event', 'dedupe_key'])
    .orderBy('notification_id')
    .execute();
}

/** `(at 2026-11-28 14:03 UTC)` of an ISO instant: the end of every alert's text. */
const atOf = (iso: string) => `(at ${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC)`;

describe('alerts only when a person is needed', () => {
  it('no stale alert for a location whose unfinished backfill covers its recent hours', async () => {
    // History from weeks ago lands; then a backfill up to now is planned, its work still queued
    // (older chunks first: the location lags by weeks until its last chunk lands).
    const old = await fx.planBackfill({ ...backfillRange('2024-05-01', '2024-05-05'), now: T0 });
    const worker = IngestWorker.start(app, { concurrency: 4 });
    try {
      expect((await waitForRun(app.db, old.runId!)).status).toBe('done');
    } finally {
      await worker.close();
    }
    const filling = await fx.planBackfill({ ...backfillRange('2024-05-05', T0), now: T0 });
    await checkAlerts(app, { now: T0 });
    await checkAlerts(app, { now: T0 });
    expect(await events()).toEqual([]);

    // Cancelled, nothing brings those hours any more: the lag is a breach a person must see.
    await cancelRunAndJobs(app, filling.runId!);
    await checkAlerts(app, { now: T0 });
    expect((await events()).map((e) => e.event)).toEqual([
      'freshness-breached',
      'freshness-breached',
    ]);
    const breaches = await receiver.waitFor((a) => a.body.event === 'freshness-breached', 2);
    for (const breach of breaches) {
      expect(breach.body.text).toMatch(/^envdata: 2 location\(s\) stale for \w+ /);
      expect(breach.body.text).toContain(atOf(String(breach.body.at)));
    }
  });

  it('a quota-bound run: one "quota-bound, expected to finish" alert, no reached/freed pair per quota day', async () => {
    const quotaEvents = async () =>
      (await events()).filter((e) => e.event.startsWith('quota') || e.event.includes('quota-'));
    const quota = { ENVDATA_QUOTA: `${PER_DAY}/day`, ENVDATA_SYNC_RESERVE: '0' };
    const bound = fx.newApp(quota);
    // 2 datasets × 2 locations × 2 windows = 8 calls; 2 a day.
    const run = await fx.planBackfill({ ...backfillRange('2024-04-03', '2024-04-07'), now: T0 });
    const worker = IngestWorker.start(bound, { concurrency: 2 });
    let until: Date;
    try {
      const held = await waitForRun(bound.db, run.runId!, {
        timeoutMs: 30_000,
        until: (p) => p.waiting !== null && p.done === PER_DAY,
      });
      until = held.waiting!.until!;
    } finally {
      await worker.close();
    }
    // The hold itself records nothing; the check says it once, however often it runs.
    expect(await quotaEvents()).toEqual([]);
    const now = new Date(until.getTime() - 60_000);
    await checkAlerts(bound, { now });
    await checkAlerts(bound, { now });
    // After the reset too: no "quota reset" for a hold nobody was asked to act on.
    await checkAlerts(bound, { now: new Date(until.getTime() + 1_000) });
    expect(await quotaEvents()).toEqual([
      { event: 'run-quota-bound', dedupe_key: `run:${run.runId}:quota-bound` },
    ]);
    const [alert] = await receiver.waitFor((a) => a.body.event === 'run-quota-bound');
    // 6 calls left at 2 a day: 3 more quota days, the last from the reset 2 days after `until`.
    const finish = new Date(until.getTime() + 2 * 86_400_000).toISOString();
    expect(alert!.body.details).toMatchObject({ runId: run.runId, callsLeft: 6 });
    expect(alert!.body.text).toBe(
      `envdata: run ${run.runId} is quota-bound (quota (day)): 6 call(s) left, expected to finish ~${finish.slice(0, 10)} ${finish.slice(11, 16)} UTC; it goes on by itself at each reset — nothing to do (raise ENVDATA_QUOTA to go faster) ${atOf(String(alert!.body.at))}`,
    );
    await cancelRunAndJobs(bound, run.runId!);
  });

  it('ENVDATA_NOTIFY_EVENTS: only the events named are posted; the outbox keeps them all', async () => {
    await recordNotification(app.db, {
      key: 'filter:key-refused',
      event: 'key-refused',
      details: { runId: 990 },
    });
    await recordNotification(app.db, {
      key: 'filter:run-ended',
      event: 'run-ended',
      details: { runId: 991, kind: 'backfill', status: 'failed' },
    });
    await receiver.waitFor(
      (a) => a.body.event === 'run-ended' && (a.body.details as { runId?: number }).runId === 991,
    );
    const posted = await app.db
      .selectFrom('notification_delivery as d')
      .innerJoin('notification as n', 'n.notification_id', 'd.notification_id')
      .select('n.dedupe_key')
      .where('n.dedupe_key', 'like', 'filter:%')
      .execute();
    expect(posted.map((p) => p.dedupe_key)).toEqual(['filter:run-ended']);
    expect(receiver.received.filter((a) => a.body.event === 'key-refused')).toEqual([]);
  });

  it('ENVDATA_NOTIFY_EVENTS refuses an unknown name, listing the known ones', () => {
    const message = configError({ ENVDATA_NOTIFY_EVENTS: 'run-ended,stale' });
    expect(message).toContain('ENVDATA_NOTIFY_EVENTS');
    expect(message).toContain('unknown event(s) "stale": known events are all, run-ended,');
  });
});
