import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamJson } from '../../src/cli/json/upstream-json.js';
import type { WeatherDrift } from '../../src/simulator/render/drift-variant.js';
import { startAlertReceiver, type AlertReceiver } from '../harness/alert-receiver.js';
import { backfillWindows, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil } from '../harness/poll-until.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { startEnvdata, type RunningEnvdata } from '../harness/start-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';

// Weather only, 2 locations × 2 windows: 4 answers per phase, shared by two worker processes.
const fx = useBackfillFixture();
let receiver: AlertReceiver;
let workers: RunningEnvdata[] = [];

beforeAll(async () => {
  receiver = await startAlertReceiver();
  const env = fx.cliEnv({
    ENVDATA_NOTIFY_URL: receiver.url,
    ENVDATA_NOTIFY_FORMAT: 'json',
    LOG_LEVEL: 'info',
  });
  workers = [0, 1].map(() => startEnvdata(['worker', '--concurrency', '4'], env));
  await Promise.all(
    workers.map((w) =>
      w.waitFor(/alerts are posted to ENVDATA_NOTIFY_URL/, { timeoutMs: 120_000 }),
    ),
  );
});

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await receiver?.close();
});

/**
 * A backfill of weather over `day` and the next 4 days, with the simulator sending `drift`:
 * the answers the simulator sent (a chunk whose records were all refused is fetched again).
 */
async function phase(day: string, drift: WeatherDrift | null): Promise<number> {
  fx.simulator.setOptions({ drift });
  const before = fx.simulator.stats().total;
  const { runId } = await fx.planBackfill(backfillWindows(day, 2, { datasets: ['weather'] }));
  await waitForRun(fx.app.db, runId!, { timeoutMs: 120_000 });
  return fx.simulator.stats().total - before;
}

describe('drift seen: the simulator switches shape between runs, two workers take the answers', () => {
  it('records each shape once, lists each change, and posts one notification per new shape', async () => {
    const calls = [
      await phase('2024-06-02', null),
      await phase('2024-06-06', { addField: 'smoke' }),
      await phase('2024-06-10', { addField: 'smoke', humidityAsText: true }),
      await phase('2024-06-14', { addField: 'smoke', dropHumidity: true }),
      // Back to a shape seen before: no new shape, no notification.
      await phase('2024-06-18', { addField: 'smoke' }),
    ];
    expect(calls[0]).toBe(4);

    const result = await runEnvdata(['upstream', '--json'], fx.cliEnv());
    expect(result.code, result.stderr).toBe(0);
    const { shapes } = upstreamJson.parse(JSON.parse(result.stdout));
    expect(shapes.map((s) => [s.dataset, s.source, s.status])).toEqual([
      ['weather', 'history', 'baseline'],
      ['weather', 'history', 'not accepted'],
      ['weather', 'history', 'not accepted'],
      ['weather', 'history', 'not accepted'],
    ]);
    const [baseline, added, typed, gone] = shapes;
    expect(baseline!.units).toEqual({
      humidity: 'fraction',
      cloudCover: 'fraction',
      precipProbability: 'fraction',
    });
    expect(baseline!.envelope).toBe('status, data.history[]');
    expect(added!.changes).toEqual({
      added: ['data.history[].smoke'],
      gone: [],
      typeChanged: [],
      unitChanged: [],
    });
    expect(typed!.changes).toEqual({
      added: [],
      gone: [],
      typeChanged: [{ path: 'data.history[].humidity', from: ['number'], to: ['string'] }],
      unitChanged: [],
    });
    expect(gone!.changes).toEqual({
      added: [],
      gone: ['data.history[].humidity'],
      typeChanged: [],
      unitChanged: [],
    });
    expect(gone!.previous).toBe(typed!.shape);
    // The first answer of each shape is kept, and the chunk whose archived answer it is.
    const samples = await fx.app.db
      .selectFrom('upstream_shape')
      .select(['digest', 'sample_body', 'sample_chunk_id'])
      .execute();
    for (const s of samples) expect(s.sample_chunk_id).not.toBeNull();
    expect(samples.find((s) => s.digest === typed!.shape)!.sample_body).toContain('%"');

    const text = await runEnvdata(['upstream'], fx.cliEnv());
    expect(text.stdout).toContain('key added: data.history[].smoke');
    expect(text.stdout).toContain('type changed: data.history[].humidity number → string');
    expect(text.stdout).toContain('key gone: data.history[].humidity');
    expect(text.stdout).toContain(`envdata upstream accept ${gone!.shape}`);

    const accepted = await runEnvdata(['upstream', 'accept', added!.shape], fx.cliEnv());
    expect(accepted.stdout).toContain(`accepted shape ${added!.shape}`);
    const after = upstreamJson.parse(
      JSON.parse((await runEnvdata(['upstream', '--json'], fx.cliEnv())).stdout),
    );
    expect(after.shapes.map((s) => s.status)).toEqual([
      'baseline',
      'accepted',
      'not accepted',
      'not accepted',
    ]);
    expect((await runEnvdata(['upstream', 'accept', '000000000000'], fx.cliEnv())).code).toBe(2);

    // One event per new shape in the outbox, one POST each at the receiver.
    const events = await fx.app.db
      .selectFrom('notification')
      .select(['event', 'dedupe_key'])
      .where('event', '=', 'upstream-changed')
      .orderBy('notification_id')
      .execute();
    expect(events.map((e) => e.dedupe_key)).toEqual(
      [added, typed, gone].map((s) => `upstream:${s!.shape}:new`),
    );
    await receiver.waitFor((a) => a.body.event === 'upstream-changed', 3);
    await pollUntil(
      async () => {
        const { rows } = await sql<{ pending: number }>`
        select count(*) filter (where status = 'pending')::int as pending
        from envdata.notification_delivery`.execute(fx.app.db);
        return rows[0]!.pending === 0 ? { done: true } : { last: rows[0] };
      },
      { describe: (l) => `deliveries still pending: ${JSON.stringify(l)}` },
    );
    const posted = receiver.received.filter((a) => a.body.event === 'upstream-changed');
    expect(posted).toHaveLength(3);
    expect(String(posted[0]!.body.text)).toContain('key added: data.history[].smoke');

    // Every answer counted once, by shape, when the workers stop.
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    workers = [];
    const counts = await fx.app.db
      .selectFrom('upstream_shape')
      .select(['digest', 'answers'])
      .execute();
    const answers = Object.fromEntries(counts.map((c) => [c.digest, Number(c.answers)]));
    expect(answers).toEqual({
      [baseline!.shape]: calls[0],
      [added!.shape]: calls[1]! + calls[4]!,
      [typed!.shape]: calls[2],
      [gone!.shape]: calls[3],
    });
  });
});
