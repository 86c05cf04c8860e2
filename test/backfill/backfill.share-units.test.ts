import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { rebuildFromArchive } from '../../src/landing/rebuild-from-archive.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import type { Database } from '../../src/warehouse/schema.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import {
  backfillRange,
  useBackfillFixture,
  type BackfillFixture,
} from '../harness/backfill-fixture.js';
import { captureLogger } from '../harness/capture-logger.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';

// Every weather answer writes humidity, cloud cover and precipitation probability as whole
// percentages (the `percentages` shape), archived so that a rebuild can read them again. The
// reference is the same service writing fractions.
const fx = useBackfillFixture(
  { legacyShapes: { percentages: true } },
  { ENVDATA_ARCHIVE_RAW: 'true' },
);
const reference = useBackfillFixture();
// Every weather answer writes humidity as whole percentages beside cloud cover and
// precipitation probability as fractions (the `unitsPerField` shape: humidity 81 beside cloud
// cover 0.83 in a documented record, 92 beside cloud cover 1 in a live capture). Paced so that
// a worker can be stopped mid-run.
const mixed = useBackfillFixture(
  { legacyShapes: { unitsPerField: true } },
  { ENVDATA_RATE_LIMIT: '4/s' },
);

// The same service, on a warehouse that has learned nothing yet.
const fresh = useBackfillFixture({ legacyShapes: { unitsPerField: true } });

interface Shares {
  readonly location: string;
  readonly at: string;
  readonly temperature: number | null;
  readonly humidity: number | null;
  readonly cloudCover: number | null;
  readonly precipProbability: number | null;
}

/** The shares (and temperature) landed in `[from, to)`, in location and hour order. */
async function sharesIn(db: Kysely<Database>, from: string, to: string): Promise<Shares[]> {
  const { rows } = await sql<Shares>`
    select l.name as location, to_char(w.observed_at at time zone 'UTC', 'YYYY-MM-DD HH24') as at,
      w.temperature_c as temperature, w.humidity_fraction as humidity,
      w.cloud_cover_fraction as "cloudCover", w.precip_probability_fraction as "precipProbability"
    from envdata.weather_hourly w join envdata.location l using (location_id)
    where w.observed_at >= ${new Date(from)} and w.observed_at < ${new Date(to)}
    order by l.name, w.observed_at`.execute(db);
  return rows;
}

/** Backfills weather over `[from, to)` at the fixture's locations named `names`; the run ends done. */
async function backfillWeather(f: BackfillFixture, from: string, to: string, names: string[]) {
  const locations = f.locations.filter((l) => names.includes(l.name));
  const start = await startBackfill(f.app, {
    ...backfillRange(from, to, { datasets: ['weather'] }),
    locations,
  });
  const worker = IngestWorker.start(f.app, { concurrency: 2 });
  try {
    const progress = await waitForRun(f.app.db, start.runId!);
    expect(progress).toMatchObject({ status: 'done', failed: 0 });
  } finally {
    await worker.close();
  }
  return start.runId!;
}

/** The units remembered, per dataset, source and field. */
async function rememberedUnits(db: Kysely<Database>) {
  return db
    .selectFrom('share_unit')
    .select(['dataset', 'source', 'field', 'unit'])
    .orderBy('dataset')
    .orderBy('source')
    .orderBy('field')
    .execute();
}

/** The same unit remembered for each share field of weather history. */
function historyUnits(unit: 'fraction' | 'percent') {
  return ['cloudCover', 'humidity', 'precipProbability'].map((field) => ({
    dataset: 'weather',
    source: 'history',
    field,
    unit,
  }));
}

/** The share-unit entries of the quarantine, by reason. */
async function shareQuarantine(db: Kysely<Database>) {
  return db
    .selectFrom('quarantine')
    .select(['reason', 'observed_at'])
    .where('reason', 'like', 'share unit unknown:%')
    .execute();
}

/** `envdata status [RUN] --json` of the fixture's warehouse, parsed. */
async function statusJson(f: BackfillFixture, runId?: number) {
  const args = runId === undefined ? ['status', '--json'] : ['status', String(runId), '--json'];
  const result = await runCliInProcess(args, f.cliEnv());
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as {
    setAside?: unknown[];
    run?: { setAside: unknown[] };
  };
}

describe('share units are decided per answer and field, never per value', () => {
  /** The run of the first case, whose shares were set aside. */
  let firstRunId = 0;

  it('an answer that cannot tell, with nothing remembered, lands all but its shares, which it quarantines with the reason; `backfill --wait` exits 1 with one line that counts them', async () => {
    // Every share of the answer is 1 or 0: 1 % and 0 % here, 100 % and 0 % as fractions.
    fx.simulator.setFaults('weather-history:ambiguous x1');
    const args = ['--dataset', 'weather', '--from', '2024-06-02', '--to', '2024-06-04'];
    const result = await runCliInProcess(
      ['backfill', ...args, '--location', 'Berlin', '--wait'],
      fx.cliEnv(),
    );
    expect(fx.simulator.stats().faults).toEqual({ ambiguous: 1 });
    const runId = Number(/^run (\d+):/m.exec(result.stdout)?.[1]);

    const landed = await sharesIn(fx.app.db, '2024-06-02', '2024-06-04');
    expect(landed).toHaveLength(48);
    for (const row of landed) {
      // A 0 is 0 in both units: it lands.
      expect(row).toMatchObject({ humidity: null, cloudCover: null, precipProbability: 0 });
      expect(row.temperature).not.toBeNull();
    }
    // What the answers sent, read off the records kept in the quarantine: each 1 is set aside.
    const { rows: sent } = await sql<{ field: string; n: number; records: number }>`
      select f.field, count(*) filter (where (q.raw ->> f.field)::numeric = 1)::int as n,
        count(distinct q.quarantine_id)::int as records
      from envdata.quarantine q
      cross join unnest(array['humidity', 'cloudCover', 'precipProbability']) as f(field)
      where q.run_id = ${runId}
      group by f.field
      order by n desc, f.field`.execute(fx.app.db);
    const fields = sent.filter((f) => f.n > 0);
    expect(fields.length).toBeGreaterThan(0);
    expect(sent[0]!.records).toBe(48);
    const values = fields.reduce((n, f) => n + f.n, 0);

    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toContain(`run ${runId} (backfill) done: 1/1 chunks done, 0 failed`);
    expect(result.stdout).toContain(
      `\n  exit 1: ${values} value(s) in 48 hour(s) set aside, not in the warehouse — ` +
        `weather_history ${fields.map((f) => `${f.field} ${f.n}`).join(', ')} (share unit unknown): ` +
        'the worker fills them from the archive once a later weather answer tells the unit; ' +
        'if some stay after one has, run `envdata rebuild --dataset weather`\n',
    );
    // Their hours landed: no other line calls them quarantined.
    expect(result.stdout).not.toMatch(/quarantined: /);

    const setAside = {
      reason: 'share unit unknown',
      source: 'weather_history',
      values,
      hours: 48,
      records: 48,
      fields: Object.fromEntries(fields.map((f) => [f.field, f.n])),
      command: 'envdata rebuild --dataset weather',
      when: 'the worker fills them from the archive once a later weather answer tells the unit; if some stay after one has',
    };
    expect((await statusJson(fx, runId)).run?.setAside).toEqual([setAside]);
    expect((await statusJson(fx)).setAside).toEqual([setAside]);
    // Said once, with the run's end: one notification, never one per value.
    const { rows: alerts } = await sql<{ dedupe_key: string; set_aside: number }>`
      select dedupe_key, (details ->> 'setAsideValues')::int as set_aside
      from envdata.notification where event = 'run-ended'`.execute(fx.app.db);
    expect(alerts).toEqual([{ dedupe_key: `run:${runId}:ended`, set_aside: values }]);

    const quarantine = await fx.app.db
      .selectFrom('quarantine')
      .select(['reason', 'observed_at'])
      .where('run_id', '=', runId)
      .execute();
    expect(quarantine).toHaveLength(48);
    expect(new Set(quarantine.map((q) => q.reason))).toEqual(
      new Set([
        'share unit unknown: humidity 1, cloudCover 1 not landed (every value of the field in the ' +
          'answer is 0 or 1, which reads as a fraction and as a percentage alike, and no earlier ' +
          "answer of this source taught its unit); the record's other values landed",
      ]),
    );
    expect(await rememberedUnits(fx.app.db)).toEqual([]);
    firstRunId = runId;
  });

  it('answers of whole percentages land as the fractions the service meant (1 % as 0.01), and teach the unit', async () => {
    fx.simulator.setFaults({});
    // A run whose every value landed exits 0 and says nothing is set aside.
    const clean = await runCliInProcess(
      ['backfill', '--dataset', 'weather', '--from', '2024-06-04', '--to', '2024-06-10', '--wait'],
      fx.cliEnv(),
    );
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).not.toMatch(/set aside/);
    await backfillWeather(reference, '2024-06-04', '2024-06-10', ['Berlin', 'Brisbane']);
    const shares = await sharesIn(fx.app.db, '2024-06-04', '2024-06-10');
    expect(shares).toHaveLength(2 * 144);
    expect(shares).toEqual(await sharesIn(reference.app.db, '2024-06-04', '2024-06-10'));
    // The answers held shares of 1 %, which a per-value reading took for 100 %.
    const onePercent = shares.filter((s) =>
      [s.humidity, s.cloudCover, s.precipProbability].some(
        (v) => v !== null && Math.abs(v - 0.01) < 1e-6,
      ),
    );
    expect(onePercent.length).toBeGreaterThan(0);
    expect(await rememberedUnits(fx.app.db)).toEqual(historyUnits('percent'));
    expect(await rememberedUnits(reference.app.db)).toEqual(historyUnits('fraction'));
  });

  it('an answer that cannot tell takes the unit the last answers told', async () => {
    fx.simulator.setFaults('weather-history:ambiguous x1');
    await backfillWeather(fx, '2024-06-10', '2024-06-12', ['Berlin']);
    const landed = await sharesIn(fx.app.db, '2024-06-10', '2024-06-12');
    expect(landed).toHaveLength(48);
    for (const row of landed) {
      expect(row.humidity).toBeCloseTo(0.01, 6);
      expect(row.cloudCover).toBeCloseTo(0.01, 6);
      expect(row.precipProbability).toBe(0);
    }
    // The same fault at the fraction-writing service means 100 %.
    reference.simulator.setFaults('weather-history:ambiguous x1');
    await backfillWeather(reference, '2024-06-10', '2024-06-12', ['Berlin']);
    for (const row of await sharesIn(reference.app.db, '2024-06-10', '2024-06-12')) {
      expect(row).toMatchObject({ humidity: 1, cloudCover: 1, precipProbability: 0 });
    }
  });

  it('a rebuild from the archive decides as ingestion does', async () => {
    const before = await sharesIn(fx.app.db, '2024-06-04', '2024-06-12');
    await sql`delete from envdata.weather_hourly where observed_at >= '2024-06-04'`.execute(
      fx.app.db,
    );
    const { logger } = captureLogger();
    const outcome = await rebuildFromArchive(
      fx.app.db,
      { datasets: ['weather'], from: new Date('2024-06-04T00:00:00Z') },
      logger,
    );
    expect(outcome.failed).toEqual([]);
    expect(await sharesIn(fx.app.db, '2024-06-04', '2024-06-12')).toEqual(before);
  });

  it('once a later answer told the unit, the shares set aside are filled and out of quarantine, and a rebuild keeps them', async () => {
    // The worker filled them from the archive after the landing that told the unit (the previous
    // tests), with no one running anything.
    const filled = await sharesIn(fx.app.db, '2024-06-02', '2024-06-04');
    expect(filled).toHaveLength(48);
    for (const row of filled) {
      expect(row.humidity).toBeCloseTo(0.01, 6);
      expect(row.cloudCover).toBeCloseTo(0.01, 6);
      expect(row.precipProbability).toBe(0);
    }
    expect(await shareQuarantine(fx.app.db)).toEqual([]);
    // Nothing is set aside any more: neither the first run nor the warehouse lists any.
    expect((await statusJson(fx, firstRunId)).run?.setAside).toEqual([]);
    expect((await statusJson(fx)).setAside).toEqual([]);
    const status = await runCliInProcess(['status', String(firstRunId)], fx.cliEnv());
    expect(status.stdout).toContain(`run ${firstRunId} (backfill) done: 1/1 chunks done`);
    expect(status.stdout).not.toMatch(/set aside|exit 1/);

    // A rebuild reads the same answers with the unit remembered: the same values, none set aside.
    const { logger } = captureLogger();
    const outcome = await rebuildFromArchive(fx.app.db, { datasets: ['weather'] }, logger);
    expect(outcome.failed).toEqual([]);
    expect(await sharesIn(fx.app.db, '2024-06-02', '2024-06-04')).toEqual(filled);
    expect(await shareQuarantine(fx.app.db)).toEqual([]);
  });
});

describe('answers that mix units per field', () => {
  it('a clean backfill stores every value exactly as the service writing fractions: no share NULL, cloud cover 1 as 1', async () => {
    await backfillWeather(mixed, '2024-06-12', '2024-06-18', ['Berlin', 'Brisbane']);
    await backfillWeather(reference, '2024-06-12', '2024-06-18', ['Berlin', 'Brisbane']);
    const shares = await sharesIn(mixed.app.db, '2024-06-12', '2024-06-18');
    expect(shares).toHaveLength(2 * 144);
    expect(shares).toEqual(await sharesIn(reference.app.db, '2024-06-12', '2024-06-18'));
    for (const field of ['humidity', 'cloudCover', 'precipProbability'] as const) {
      expect([field, shares.filter((s) => s[field] === null).length]).toEqual([field, 0]);
    }
    // Overcast hours: cloud cover 1 beside humidity in percent, landed as 1 (never 0.01).
    expect(shares.filter((s) => s.cloudCover === 1).length).toBeGreaterThan(10);
    expect(shares.filter((s) => s.cloudCover === 0.01)).toEqual([]);
    expect(await shareQuarantine(mixed.app.db)).toEqual([]);
    expect(await rememberedUnits(mixed.app.db)).toEqual([
      { dataset: 'weather', source: 'history', field: 'cloudCover', unit: 'fraction' },
      { dataset: 'weather', source: 'history', field: 'humidity', unit: 'percent' },
      { dataset: 'weather', source: 'history', field: 'precipProbability', unit: 'fraction' },
    ]);
  });

  // Interrupted by stopping the worker mid-run (not by SIGKILL, which
  // backfill.resume-after-sigkill covers with a process of its own): the units are decided per
  // answer, so what matters is that the answers after the stop are read as those before.
  it('a backfill interrupted and resumed stores every value exactly, an answer of cloud cover only 1 in the unit remembered', async () => {
    const from = '2024-06-18';
    const to = '2024-06-30';
    const start = await startBackfill(mixed.app, {
      ...backfillRange(from, to, { datasets: ['weather'] }),
      locations: mixed.locations,
    });
    const runId = start.runId!;
    expect(start.estimate.chunks).toBe(12);
    mixed.simulator.resetStats();
    const first = IngestWorker.start(mixed.app, { concurrency: 1 });
    try {
      await waitForRun(mixed.app.db, runId, { until: (p) => p.done >= 3 });
    } finally {
      await first.close();
    }
    const stopped = await waitForRun(mixed.app.db, runId, { until: () => true });
    expect(stopped.done).toBeLessThan(12);
    const second = IngestWorker.start(mixed.app, { concurrency: 2 });
    try {
      expect(await waitForRun(mixed.app.db, runId)).toMatchObject({
        status: 'done',
        done: 12,
        failed: 0,
      });
    } finally {
      await second.close();
    }
    expect(mixed.simulator.stats().total).toBe(12);

    await backfillWeather(reference, from, to, ['Berlin', 'Brisbane']);
    const shares = await sharesIn(mixed.app.db, from, to);
    expect(shares).toHaveLength(2 * 12 * 24);
    expect(shares).toEqual(await sharesIn(reference.app.db, from, to));
    for (const field of ['humidity', 'cloudCover', 'precipProbability'] as const) {
      expect([field, shares.filter((s) => s[field] === null).length]).toEqual([field, 0]);
    }
    // Brisbane, 2024-06-22 to 06-24: a stratus deck, cloud cover 1 in every hour of the answer,
    // which cannot tell its unit by itself; read in the unit cloud cover last had (fraction).
    const deck = shares.filter(
      (s) => s.location === 'Brisbane' && s.at >= '2024-06-22 00' && s.at < '2024-06-24 00',
    );
    expect(deck).toHaveLength(48);
    expect(new Set(deck.map((s) => s.cloudCover))).toEqual(new Set([1]));
    expect(await shareQuarantine(mixed.app.db)).toEqual([]);
  });
});

describe('shares set aside for want of a unit are filled once an answer tells it', () => {
  it('a first answer of cloud cover only 1 is set aside with nothing remembered, then filled from the archive by the worker when a later answer tells the unit: no call, nothing left set aside', async () => {
    // Brisbane, 2024-06-22 to 06-24: cloud cover 1 in every hour, which tells no unit.
    const overcast = await runCliInProcess(
      [
        ...['backfill', '--dataset', 'weather', '--from', '2024-06-22', '--to', '2024-06-24'],
        ...['--location', 'Brisbane', '--wait'],
      ],
      fresh.cliEnv(),
    );
    expect(overcast.code, overcast.stdout + overcast.stderr).toBe(1);
    expect(overcast.stdout).toContain(
      'exit 1: 48 value(s) in 48 hour(s) set aside, not in the warehouse — weather_history cloudCover 48 (share unit unknown)',
    );
    const firstRun = Number(/^run (\d+)/m.exec(overcast.stdout)?.[1]);
    const calls = fresh.simulator.stats().total;

    const next = await runCliInProcess(
      [
        ...['backfill', '--dataset', 'weather', '--from', '2024-06-24', '--to', '2024-06-26'],
        ...['--location', 'Brisbane', '--wait'],
      ],
      fresh.cliEnv(),
    );
    expect(next.code, next.stdout + next.stderr).toBe(0);
    // One call, for the new window: the set-aside hours were read again from the archive.
    expect(fresh.simulator.stats().total).toBe(calls + 1);
    // The reference learns its units first (its later window), then reads the overcast one
    // (earlier cases of this file may have landed both already).
    for (const [from, to] of [
      ['2024-06-24', '2024-06-26'],
      ['2024-06-22', '2024-06-24'],
    ] as const) {
      const landed = await sharesIn(reference.app.db, from, to);
      if (landed.filter((s) => s.location === 'Brisbane').length === 0) {
        await backfillWeather(reference, from, to, ['Brisbane']);
      }
    }
    const shares = await sharesIn(fresh.app.db, '2024-06-22', '2024-06-26');
    expect(shares).toHaveLength(96);
    const brisbane = (await sharesIn(reference.app.db, '2024-06-22', '2024-06-26')).filter(
      (s) => s.location === 'Brisbane',
    );
    expect(shares).toEqual(brisbane);
    expect(shares.filter((s) => s.cloudCover === 1).length).toBeGreaterThanOrEqual(48);
    expect(await shareQuarantine(fresh.app.db)).toEqual([]);
    expect((await statusJson(fresh, firstRun)).run?.setAside).toEqual([]);
  });
});
