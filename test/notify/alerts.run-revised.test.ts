import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { runStatusJson } from '../../src/cli/json/run-status-json.js';
import { createHousekeeping } from '../../src/housekeeping/create-housekeeping.js';
import { runProgress } from '../../src/ledger/run-progress.js';
import { checkAlerts } from '../../src/notify/check-alerts.js';
import { startSync } from '../../src/sync/start-sync.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { startAlertReceiver, type AlertReceiver } from '../harness/alert-receiver.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { waitForQueueEmpty } from '../harness/poll-until.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';

const T0 = new Date('2024-06-10T02:00:00Z');

// Finished chunks are folded on the first housekeeping pass: the figures must survive it.
const fx = useBackfillFixture({ now: T0.toISOString() }, { ENVDATA_CHUNK_RETENTION: '0h' });
let receiver: AlertReceiver;
let app: App;

beforeAll(async () => {
  receiver = await startAlertReceiver();
  app = fx.newApp({ ENVDATA_NOTIFY_URL: receiver.url, ENVDATA_NOTIFY_FORMAT: 'json' });
  // Delivery only: the test runs the periodic checks itself.
  await app.start({ notifications: { pollMs: 50, checkMs: 0 } });
});

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

async function runToEnd(runId: number): Promise<void> {
  const worker = IngestWorker.start(app, { concurrency: 4 });
  try {
    expect((await waitForRun(app.db, runId)).status).toBe('done');
    await waitForQueueEmpty(app);
  } finally {
    await worker.close();
  }
}

/** The hours run `runId` revised, by dataset, as the revision tables hold them. */
async function revisedHours(runId: number): Promise<{ weather: number; pollen: number }> {
  const { rows } = await sql<{ weather: number; pollen: number }>`
    select (select count(*) from (select distinct location_id, observed_at
        from analytics.weather_hourly_revisions where replaced_by_run = ${runId}) w)::int as weather,
      (select count(*) from (
        select location_id, observed_at from analytics.pollen_hourly_revisions
        where replaced_by_run = ${runId}
        union
        select location_id, observed_at from analytics.pollen_species_hourly_revisions
        where replaced_by_run = ${runId}) p)::int as pollen`.execute(app.db);
  return rows[0]!;
}

async function revisedEvents(): Promise<{ dedupe_key: string; details: unknown }[]> {
  return app.db
    .selectFrom('notification')
    .select(['dedupe_key', 'details'])
    .where('event', '=', 'run-revised')
    .orderBy('notification_id')
    .execute();
}

describe('revisions a run made: status RUN and the run-revised alert', () => {
  it('a sync re-reading revised hours: counted by dataset, kept through folding, one alert; an identical re-read raises none', async () => {
    const { runId } = await fx.planBackfill({ ...backfillRange('2024-06-05', T0), now: T0 });
    await runToEnd(runId!);
    expect((await runProgress(app.db, runId!))!.revisions).toEqual([
      { dataset: 'pollen', rereadHours: 0, revisedHours: 0 },
      { dataset: 'weather', rereadHours: 0, revisedHours: 0 },
    ]);

    // The service now answers about half of the hours it sent before with other values.
    fx.simulator.setOptions({ revise: { share: 0.5 } });
    const sync = await startSync(app, T0);
    await runToEnd(sync.runId);
    const progress = (await runProgress(app.db, sync.runId))!;
    const revised = await revisedHours(sync.runId);
    const [pollen, weather] = progress.revisions;
    // Two locations, the sync's 48 h lookback re-read for each dataset.
    expect(weather).toMatchObject({ dataset: 'weather', revisedHours: revised.weather });
    expect(pollen).toMatchObject({ dataset: 'pollen', revisedHours: revised.pollen });
    for (const r of [weather!, pollen!]) {
      expect(r.rereadHours).toBeGreaterThanOrEqual(2 * 48);
      expect(r.revisedHours).toBeGreaterThan(0);
      expect(r.revisedHours).toBeLessThan(r.rereadHours);
    }

    const doc = runStatusJson.parse(
      JSON.parse(
        (await runCliInProcess(['status', String(sync.runId), '--json'], fx.cliEnv())).stdout,
      ),
    );
    expect(doc.run!.revisions.weather).toEqual({
      rereadHours: weather!.rereadHours,
      revisedHours: weather!.revisedHours,
      revisedShare: weather!.revisedHours / weather!.rereadHours,
    });
    expect(doc.run!.revisions.pollen.revisedHours).toBe(pollen!.revisedHours);
    const text = await runCliInProcess(['status', String(sync.runId)], fx.cliEnv());
    expect(text.stdout).toContain(
      `  revised: pollen ${pollen!.revisedHours} of ${pollen!.rereadHours} re-read hour(s) (`,
    );
    expect(text.stdout).toContain(
      `, weather ${weather!.revisedHours} of ${weather!.rereadHours} re-read hour(s) (`,
    );
    expect(text.stdout).toContain('analytics.weather_hourly_revisions');

    // Folded into the run, its chunks gone: the same figures.
    await createHousekeeping(app).pass();
    const chunks = await app.db
      .selectFrom('chunk')
      .select('chunk_id')
      .where('run_id', '=', sync.runId)
      .execute();
    expect(chunks).toEqual([]);
    expect((await runProgress(app.db, sync.runId))!.revisions).toEqual(progress.revisions);

    // Over 5 % (the default): one event, however many checks.
    await checkAlerts(app, { now: T0 });
    await checkAlerts(app, { now: T0 });
    const events = await revisedEvents();
    expect(events.map((e) => e.dedupe_key)).toEqual([`run:${sync.runId}:revised`]);
    expect(events[0]!.details).toMatchObject({
      runId: sync.runId,
      kind: 'sync',
      limitPercent: 5,
      datasets: [
        { dataset: 'pollen', revisedHours: pollen!.revisedHours, rereadHours: pollen!.rereadHours },
        {
          dataset: 'weather',
          revisedHours: weather!.revisedHours,
          rereadHours: weather!.rereadHours,
        },
      ],
    });
    const [alert] = await receiver.waitFor((a) => a.body.event === 'run-revised');
    const alertText = String(alert!.body.text);
    expect(alertText).toContain(
      `envdata: sync run ${sync.runId} revised pollen ${pollen!.revisedHours} of ${pollen!.rereadHours} re-read hour(s)`,
    );
    expect(alertText).toContain(
      `weather ${weather!.revisedHours} of ${weather!.rereadHours} re-read hour(s)`,
    );
    expect(alertText).toContain(`envdata status ${sync.runId}`);
    expect(alertText).toContain('analytics.weather_hourly_revisions');
    expect(alertText).not.toContain(fx.simulator.url);

    // A third read answers as the second: re-read, nothing revised, no alert.
    const again = await startSync(app, T0);
    await runToEnd(again.runId);
    const quiet = (await runProgress(app.db, again.runId))!.revisions;
    expect(quiet.every((r) => r.rereadHours > 0 && r.revisedHours === 0)).toBe(true);
    await checkAlerts(app, { now: T0 });
    expect((await revisedEvents()).map((e) => e.dedupe_key)).toEqual([`run:${sync.runId}:revised`]);
    expect(receiver.received.filter((a) => a.body.event === 'run-revised')).toHaveLength(1);
  });

  it('ENVDATA_ALERT_REVISED_SHARE=off raises none; a share above the run’s raises none', async () => {
    fx.simulator.setOptions({ revise: { share: 0.5, seed: 'other' } });
    const sync = await startSync(app, T0);
    await runToEnd(sync.runId);
    const revisions = (await runProgress(app.db, sync.runId))!.revisions;
    expect(revisions.some((r) => r.revisedHours > 0)).toBe(true);
    await checkAlerts(fx.newApp({ ENVDATA_ALERT_REVISED_SHARE: 'off' }), { now: T0 });
    await checkAlerts(fx.newApp({ ENVDATA_ALERT_REVISED_SHARE: '100%' }), { now: T0 });
    expect((await revisedEvents()).map((e) => e.dedupe_key)).not.toContain(
      `run:${sync.runId}:revised`,
    );
  });
});
