import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { recordNotification } from '../../src/ledger/record-notification.js';
import { notificationJson } from '../../src/notify/notification-document.js';
import { captureLogger, type CapturedLogger } from '../harness/capture-logger.js';
import {
  latencySummary,
  startAlertReceiver,
  type AlertReceiver,
} from '../harness/alert-receiver.js';
import { pollUntil } from '../harness/poll-until.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
/** Short timings: a 300 ms timeout, retries from 150 ms, polls every 50 ms. */
const TIMINGS = { pollMs: 50, timeoutMs: 300, retryBaseMs: 150, retryCapMs: 600, checkMs: 0 };
const SECRET = 'T000/B000/s3cr3t-path';

let receiver: AlertReceiver;
let app: App;
let log: CapturedLogger;
const latencies: number[] = [];
let sequence = 0;

/** Records one event (a committed transition) and returns its id. */
async function record(event: 'run-ended' | 'key-refused' = 'run-ended'): Promise<string> {
  const key = `test:${++sequence}`;
  await recordNotification(app.db, { key, event, details: { runId: sequence, action: 'x' } });
  const row = await app.db
    .selectFrom('notification')
    .select('notification_id')
    .where('dedupe_key', '=', key)
    .executeTakeFirstOrThrow();
  return String(row.notification_id);
}

/** Resolves once event `id` is delivered to the receiver, with its latency. */
async function delivered(id: string): Promise<{ attempts: number }> {
  const row = await pollUntil(
    async () => {
      const r = await app.db
        .selectFrom('notification_delivery')
        .innerJoin(
          'notification',
          'notification.notification_id',
          'notification_delivery.notification_id',
        )
        .select(['status', 'attempts', 'delivered_at', 'created_at'])
        .where('notification_delivery.notification_id', '=', Number(id))
        .executeTakeFirst();
      return r?.status === 'delivered' ? { done: r! } : { last: r };
    },
    { timeoutMs: 30_000, describe: (r) => `event ${id} not delivered: ${JSON.stringify(r)}` },
  );
  // The latency of a delivery that met no failure: commit to acknowledged.
  if (row!.attempts === 1) latencies.push(row!.delivered_at!.getTime() - row!.created_at.getTime());
  return { attempts: row!.attempts };
}

const forId = (id: string) => (a: { body: Record<string, unknown> }) => a.body.id === id;

beforeAll(async () => {
  receiver = await startAlertReceiver(`hook/${SECRET}`);
  log = captureLogger();
  app = createApp(env.config({ ENVDATA_NOTIFY_URL: receiver.url, ENVDATA_NOTIFY_FORMAT: 'json' }), {
    logger: log.logger,
  });
  await app.start({ notifications: TIMINGS });
});

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
  const { median, worst } = latencySummary(latencies);
  console.log(
    `alert delivery latency (commit to acknowledged), ${latencies.length} events with a live receiver: median ${median} ms, worst ${worst} ms`,
  );
});

describe('the outbox', () => {
  it('holds an event only if its transaction commits', async () => {
    await expect(
      app.db.transaction().execute(async (trx) => {
        await recordNotification(trx, { key: 'rolled-back', event: 'run-ended', details: {} });
        throw new Error('the transition failed');
      }),
    ).rejects.toThrow('the transition failed');
    const rows = await app.db
      .selectFrom('notification')
      .select('notification_id')
      .where('dedupe_key', '=', 'rolled-back')
      .execute();
    expect(rows).toEqual([]);
  });

  it('records one event per dedupe key, whoever records it', async () => {
    const details = { runId: 1 };
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        recordNotification(app.db, { key: 'run:1:stopped', event: 'key-refused', details }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    await receiver.waitFor((a) => a.body.event === 'key-refused', 1, 10_000);
  });
});

describe('periodic conditions', () => {
  it('says quota-freed as the held quota resets, not a check period later', async () => {
    // No periodic check in this app (checkMs 0): only the reset the check found can bring it.
    const until = new Date(Date.now() + 1_500).toISOString();
    await recordNotification(app.db, {
      key: `quota:quota (day):${until}:reached`,
      event: 'quota-reached',
      details: { reason: 'quota (day)', until, action: 'x' },
    });
    await app.notifier!.check({ biRoles: false });
    const [freed] = await receiver.waitFor(
      (a) => a.body.event === 'quota-freed' && JSON.stringify(a.body).includes(until),
      1,
      30_000,
    );
    expect(freed!.body).toMatchObject({ event: 'quota-freed' });
  });
});

describe('delivery', () => {
  it('posts a typed json document, once, promptly', async () => {
    const id = await record();
    const [alert] = await receiver.waitFor(forId(id), 1, 10_000);
    expect(notificationJson.parse(alert!.body)).toMatchObject({
      kind: 'notification',
      version: 1,
      event: 'run-ended',
    });
    expect(await delivered(id)).toEqual({ attempts: 1 });
  });

  it('delivers once after the receiver refuses connections, then answers 500', async () => {
    await receiver.down();
    const id = await record();
    await pollUntil(
      async () => {
        const r = await app.db
          .selectFrom('notification_delivery')
          .select(['attempts', 'last_error'])
          .where('notification_id', '=', Number(id))
          .executeTakeFirst();
        return r && r.attempts >= 2 ? { done: r } : { last: r };
      },
      { describe: (r) => `no failed attempts: ${JSON.stringify(r)}` },
    );
    receiver.setMode({ kind: 'status', status: 500 });
    await receiver.open();
    await receiver.waitFor(forId(id), 2, 20_000);
    receiver.setMode({ kind: 'ok' });
    const { attempts } = await delivered(id);
    expect(attempts).toBeGreaterThanOrEqual(4);
    const acknowledged = receiver.received.filter((a) => forId(id)(a) && a.status === 200);
    expect(acknowledged).toHaveLength(1);
    // Later events are not held up by it.
    const next = await record();
    await delivered(next);
    expect(receiver.received.filter((a) => forId(id)(a) && a.status === 200)).toHaveLength(1);
  });

  it('with a receiver slower than the timeout, posts one attempt at a time, with backoff', async () => {
    receiver.setMode({ kind: 'slow', delayMs: 1_500 });
    const before = receiver.maxInFlight();
    const id = await record();
    await receiver.waitFor(forId(id), 3, 20_000);
    receiver.setMode({ kind: 'ok' });
    const { attempts } = await delivered(id);
    // Each post ends at the timeout before the next: never two at once, whatever the backoff.
    expect(Math.max(before, receiver.maxInFlight())).toBe(1);
    const posts = receiver.received.filter(forId(id)).length;
    expect(posts).toBe(attempts);
    // Nothing more comes for it once acknowledged: a later event is delivered meanwhile.
    await delivered(await record());
    expect(receiver.received.filter(forId(id)).length).toBe(posts);
  });

  it('keeps each target apart: a dead one never makes a live one receive twice', async () => {
    const second = await startAlertReceiver('hook/second');
    await second.down();
    const both = createApp(
      env.config({
        ENVDATA_NOTIFY_URL: `${receiver.url}, ${second.url}`,
        ENVDATA_NOTIFY_FORMAT: 'json',
      }),
    );
    try {
      await both.start({ notifications: TIMINGS });
      const id = await record('key-refused');
      await receiver.waitFor(forId(id), 1, 10_000);
      await pollUntil(
        async () => {
          const rows = await both.db
            .selectFrom('notification_delivery')
            .select(['status', 'attempts'])
            .where('notification_id', '=', Number(id))
            .orderBy('status')
            .execute();
          return rows.length === 2 && rows[1]!.attempts >= 3 ? { done: rows } : { last: rows };
        },
        { describe: (r) => `the dead target was not retried: ${JSON.stringify(r)}` },
      );
      expect(receiver.received.filter(forId(id))).toHaveLength(1);
      await second.open();
      await second.waitFor(forId(id), 1, 20_000);
      expect(receiver.received.filter(forId(id))).toHaveLength(1);
    } finally {
      await both.stop();
      await second.close();
    }
  });

  it('drops an event older than ENVDATA_NOTIFY_MAX_AGE with a log line and a counter', async () => {
    await receiver.down();
    const id = await record();
    // A day and more in the past: as if every dispatcher had been down since.
    await sql`update envdata.notification set created_at = now() - interval '25 hours'
      where notification_id = ${id}`.execute(app.db);
    await pollUntil(
      async () => {
        const r = await app.db
          .selectFrom('notification_delivery')
          .select('status')
          .where('notification_id', '=', Number(id))
          .executeTakeFirst();
        return r?.status === 'dropped' ? { done: r } : { last: r };
      },
      { timeoutMs: 15_000, describe: (r) => `not dropped: ${JSON.stringify(r)}` },
    );
    await receiver.open();
    // The row is dropped first, the log line and the counter follow it: wait for the line.
    await pollUntil(
      () =>
        Promise.resolve(
          log.lines.some((l) => l.includes('older than ENVDATA_NOTIFY_MAX_AGE'))
            ? { done: true }
            : { last: log.lines.length },
        ),
      { timeoutMs: 15_000, describe: () => 'no log line says the event was dropped' },
    );
    expect(await app.metrics.text()).toMatch(
      /envdata_notifications_total\{event="run-ended",outcome="dropped"\} 1/,
    );
  });

  it('never logs the URL: targets are named by their host', () => {
    const text = log.lines.join('\n');
    expect(text).toContain('target 1 (127.0.0.1)');
    expect(text).not.toContain(SECRET);
  });
});
