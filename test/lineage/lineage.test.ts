import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { lineagePendingJson } from '../../src/cli/json/lineage-pending-json.js';
import { undeliveredLineage } from '../../src/ledger/lineage-deliveries.js';
import { cancelRunAndJobs } from '../../src/runs/control-run.js';
import { resumeRuns } from '../../src/runs/resume-runs.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSync } from '../../src/sync/start-sync.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { startAlertReceiver, type AlertReceiver } from '../harness/alert-receiver.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { pollUntil, waitForQueueEmpty } from '../harness/poll-until.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { waitForRun } from '../harness/wait-for-run.js';

const LINEAGE_KEY = 'ol-api-key-7f3c9e';
const WRONG_KEY = 'refused-key-0815';
const WEBHOOK_TOKEN = 's3cr3t';
const T0 = new Date('2024-06-20T00:00:00Z');

// ajv-formats is CommonJS: its default export is the function under ESM interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const FIXTURES = path.join(import.meta.dirname, '../fixtures/openlineage');
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
for (const file of readdirSync(FIXTURES)) {
  ajv.addSchema(JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as object);
}
ajv.addSchema(
  JSON.parse(
    readFileSync(
      path.join(import.meta.dirname, '../../docs/openlineage/envdata-run-facet.json'),
      'utf8',
    ),
  ) as object,
  'envdata_run',
);
const RUN_EVENT = 'https://openlineage.io/spec/2-0-2/OpenLineage.json';
/** Each facet envdata emits, by name, and the fixture it is held to. */
const FACET_SCHEMAS: Record<string, string> = {
  schema: 'https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json',
  outputStatistics:
    'https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json',
  subset: 'https://openlineage.io/spec/facets/1-0-0/BaseSubsetDatasetFacet.json',
  errorMessage: 'https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json',
  jobType: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json',
};

type Facets = Record<string, Record<string, unknown>>;
interface Event {
  eventType: string;
  eventTime: string;
  run: { runId: string; facets: Facets };
  job: { namespace: string; name: string; facets: Facets };
  inputs: { namespace: string; name: string }[];
  outputs: { namespace: string; name: string; facets: Facets; outputFacets?: Facets }[];
}

/** Holds `event` to the fixtures: the RunEvent, then each facet to its own schema. */
function validate(event: unknown): void {
  const check = (schema: string, value: unknown, what: string) => {
    const ok = ajv.validate(schema, value);
    if (!ok) throw new Error(`${what}: ${ajv.errorsText(ajv.errors)}`);
  };
  check(RUN_EVENT, event, 'RunEvent');
  const e = event as Event;
  const facetSets: Facets[] = [
    e.run.facets,
    e.job.facets,
    ...e.outputs.flatMap((o) => [o.facets, o.outputFacets ?? {}]),
  ];
  for (const facets of facetSets) {
    for (const [name, facet] of Object.entries(facets)) {
      if (name === 'envdata_run') check('envdata_run', facet, name);
      else if (FACET_SCHEMAS[name]) check(FACET_SCHEMAS[name], { [name]: facet }, name);
      else throw new Error(`facet ${name} has no schema fixture`);
    }
  }
}

type Condition = Record<string, unknown>;
/** The `[from, to)` ranges per location a subset condition holds (OR of AND terms). */
function rangesOf(condition: Condition, out = new Map<number, string[]>()): Map<number, string[]> {
  if (condition.operator === 'OR') {
    rangesOf(condition.left as Condition, out);
    rangesOf(condition.right as Condition, out);
    return out;
  }
  const value = (c: unknown) => ((c as Condition).right as { value: string }).value;
  const location = Number(value(condition.left));
  const span = condition.right as Condition;
  out.set(location, [...(out.get(location) ?? []), `${value(span.left)}/${value(span.right)}`]);
  return out;
}

const fx = useBackfillFixture({ now: T0.toISOString() });
let lineage: AlertReceiver;
let alerts: AlertReceiver;
let app: App;

const dispatch = { pollMs: 50, retryBaseMs: 50, retryCapMs: 300, timeoutMs: 2_000 };

beforeAll(async () => {
  lineage = await startAlertReceiver('api/v1/lineage');
  alerts = await startAlertReceiver(`hook/T000/B000/${WEBHOOK_TOKEN}`);
  app = fx.newApp({
    // The base URL: events go to <url>/api/v1/lineage.
    ENVDATA_OPENLINEAGE_URL: lineage.url.replace(/\/api\/v1\/lineage$/, ''),
    ENVDATA_OPENLINEAGE_API_KEY: LINEAGE_KEY,
    ENVDATA_NOTIFY_URL: alerts.url,
    ENVDATA_NOTIFY_FORMAT: 'json',
  });
  await app.start({ notifications: { pollMs: 50, checkMs: 0 }, lineage: dispatch });
});

afterAll(async () => {
  await app?.stop();
  await lineage?.close();
  await alerts?.close();
});

async function runToEnd(on: App, runId: number, status = 'done'): Promise<void> {
  const worker = IngestWorker.start(on, { concurrency: 4 });
  try {
    expect((await waitForRun(on.db, runId, { timeoutMs: 30_000 })).status).toBe(status);
    // A stopped run's jobs stay in the queue for `resume`.
    if (status === 'done') await waitForQueueEmpty(on);
  } finally {
    await worker.close();
  }
}

/** The events of envdata run `runId` the receiver took (2xx), in arrival order. */
function eventsOf(runId: number): Event[] {
  return lineage.received
    .filter((r) => r.status >= 200 && r.status < 300)
    .map((r) => r.body as unknown as Event)
    .filter((e) => e.run?.facets?.envdata_run?.runId === runId);
}

async function waitForEvents(runId: number, count: number): Promise<Event[]> {
  await lineage.waitFor(
    (r) =>
      r.status === 200 && (r.body as unknown as Event).run?.facets?.envdata_run?.runId === runId,
    count,
    30_000,
  );
  return eventsOf(runId);
}

/** What the ledger says run `runId` landed, by dataset: its chunks' rows and its folded rows. */
async function ledgerRows(
  runId: number,
): Promise<{ byDataset: Record<string, number>; folded: number }> {
  const { rows } = await sql<{ dataset: string; rows: number }>`
    select dataset::text, sum(rows_landed)::int as rows from envdata.chunk
    where run_id = ${runId} group by 1`.execute(app.db);
  const run = await app.db
    .selectFrom('run')
    .select('folded_rows')
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return {
    byDataset: Object.fromEntries(rows.map((r) => [r.dataset, r.rows])),
    folded: Number(run.folded_rows),
  };
}

/** The complete hours (landed or "no data") per location of `dataset` in `[from, to)`. */
async function coverageRanges(
  dataset: string,
  from: Date,
  to: Date,
): Promise<Map<number, string[]>> {
  const { rows } = await sql<{ location_id: number; lo: Date; hi: Date }>`
    select c.location_id, lower(u.part) as lo, upper(u.part) as hi
    from envdata.coverage c
    cross join lateral unnest((c.landed + c.no_data) * tstzmultirange(tstzrange(${from}, ${to}))) u(part)
    where c.dataset = ${dataset}::envdata.dataset
    order by 1, 2`.execute(app.db);
  const out = new Map<number, string[]>();
  for (const r of rows) {
    out.set(r.location_id, [
      ...(out.get(r.location_id) ?? []),
      `${new Date(r.lo).toISOString()}/${new Date(r.hi).toISOString()}`,
    ]);
  }
  return out;
}

async function expectNoSecret(): Promise<void> {
  // Nor stored: the outbox holds snapshots, never a key, a URL or a token.
  const { rows } = await sql<{ text: string }>`
    select coalesce(string_agg(details::text, ' '), '') as text from envdata.notification`.execute(
    app.db,
  );
  for (const secret of [LINEAGE_KEY, WEBHOOK_TOKEN, DEMO_API_KEY, WRONG_KEY, lineage.url]) {
    expect(rows[0]!.text).not.toContain(secret);
  }
  for (const r of [...lineage.received, ...alerts.received]) {
    for (const secret of [LINEAGE_KEY, WEBHOOK_TOKEN, DEMO_API_KEY, WRONG_KEY]) {
      expect(r.text).not.toContain(secret);
    }
  }
}

describe('OpenLineage events', () => {
  it('a backfill: START then COMPLETE, valid, with the rows and the hours the ledger has', async () => {
    const from = new Date('2024-06-02T00:00:00Z');
    const to = new Date('2024-06-06T00:00:00Z');
    const { runId } = await fx.planBackfill({ ...backfillRange(from, to), now: T0 });
    await runToEnd(app, runId!);
    const events = await waitForEvents(runId!, 2);
    expect(events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    for (const e of events) validate(e);
    const [start, complete] = events as [Event, Event];
    expect(complete.run.runId).toBe(start.run.runId);
    expect(complete.job).toMatchObject({ namespace: 'envdata', name: 'envdata.backfill' });
    expect(Date.parse(complete.eventTime)).toBeGreaterThanOrEqual(Date.parse(start.eventTime));

    // Sent with the key as a bearer token, to the spec's default path.
    for (const r of lineage.received) {
      expect(r.headers.authorization).toBe(`Bearer ${LINEAGE_KEY}`);
    }

    // Inputs: the service's history endpoints, by path, never a query.
    const service = new URL(fx.simulator.url);
    expect(complete.inputs.map((i) => i.name).sort()).toEqual([
      '/history/pollen/by-lat-lng',
      '/weather/history/by-lat-lng',
    ]);
    for (const i of complete.inputs) {
      expect(i.namespace).toBe(`${service.protocol}//${service.host}`);
    }

    // Outputs: the analytics views, namespaced by host and port only.
    const database = new URL(app.config.databaseUrl).pathname.slice(1);
    expect(complete.outputs.map((o) => o.name).sort()).toEqual(
      ['pollen_hourly', 'pollen_species_hourly', 'weather_hourly'].map(
        (t) => `${database}.analytics.${t}`,
      ),
    );
    for (const o of complete.outputs) {
      expect(o.namespace).toMatch(/^postgres:\/\/[^@/]+:\d+$/);
      const fields = (o.facets.schema as { fields: { name: string }[] }).fields;
      expect(fields.map((f) => f.name)).toEqual(
        expect.arrayContaining(['location_id', 'observed_at']),
      );
    }

    // Row counts: what the ledger says the run landed, and what the warehouse holds.
    const ledger = await ledgerRows(runId!);
    expect(ledger.folded).toBe(0);
    const weather = complete.outputs.find((o) => o.name.endsWith('.weather_hourly'))!;
    expect(weather.outputFacets!.outputStatistics).toMatchObject({
      rowCount: ledger.byDataset.weather,
    });
    const { rows: held } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.weather_hourly`.execute(app.db);
    expect(ledger.byDataset.weather).toBe(held[0]!.n);
    expect(ledger.byDataset.weather).toBeGreaterThan(0);
    expect(complete.run.facets.envdata_run).toMatchObject({
      rowsLanded: ledger.byDataset,
      rowsFolded: 0,
    });
    // Two tables share the pollen count: neither gets a rowCount it cannot have.
    const pollen = complete.outputs.find((o) => o.name.endsWith('.pollen_hourly'))!;
    expect(pollen.outputFacets!.outputStatistics).toBeUndefined();

    // The hours: each location's whole plan, as the coverage table holds it.
    const whole = `${from.toISOString()}/${to.toISOString()}`;
    for (const dataset of ['weather', 'pollen']) {
      const expected = await coverageRanges(dataset, from, to);
      expect([...expected.values()]).toEqual(fx.locations.map(() => [whole]));
      const output = complete.outputs.find((o) =>
        o.name.endsWith(`.${dataset === 'weather' ? 'weather' : 'pollen'}_hourly`),
      )!;
      const subset = output.outputFacets!.subset as { outputCondition: Condition };
      expect(rangesOf(subset.outputCondition)).toEqual(expected);
    }
    expect(start.outputs.every((o) => o.outputFacets === undefined)).toBe(true);

    // Alerts never went to the lineage receiver, lineage never to the alert target.
    expect(lineage.received.every((r) => 'eventType' in r.body)).toBe(true);
    expect(alerts.received.every((r) => !('eventType' in r.body))).toBe(true);
    await expectNoSecret();
  });

  it('a run stopped by a refused key says FAIL with its error, its resumed attempt START and COMPLETE; a cancelled one ABORT', async () => {
    const refused = fx.newApp({ ENVDATA_API_KEY: WRONG_KEY });
    const { runId: failing } = await fx.planBackfill({
      ...backfillRange('2024-06-06', '2024-06-08', { datasets: ['weather'] }),
      now: T0,
    });
    await runToEnd(refused, failing!, 'stopped');
    const failed = await waitForEvents(failing!, 2);
    expect(failed.map((e) => e.eventType)).toEqual(['START', 'FAIL']);
    for (const e of failed) validate(e);
    expect(failed[1]!.run.facets.errorMessage).toMatchObject({
      message: expect.stringMatching(/^UNAUTHORIZED: /),
      programmingLanguage: 'TypeScript',
    });

    // Resumed with the right key: a new attempt, a new OpenLineage run, START then COMPLETE.
    await resumeRuns(app, failing!);
    await runToEnd(app, failing!);
    const resumed = (await waitForEvents(failing!, 4)).slice(2);
    expect(resumed.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    for (const e of resumed) validate(e);
    expect(resumed[0]!.run.facets.envdata_run).toMatchObject({ attempt: 2 });
    expect(resumed[1]!.run.runId).toBe(resumed[0]!.run.runId);
    expect(resumed[0]!.run.runId).not.toBe(failed[0]!.run.runId);

    const { runId: cancelled } = await fx.planBackfill({
      ...backfillRange('2024-06-08', '2024-06-12'),
      now: T0,
    });
    await cancelRunAndJobs(app, cancelled!);
    const aborted = await waitForEvents(cancelled!, 2);
    expect(aborted.map((e) => e.eventType)).toEqual(['START', 'ABORT']);
    for (const e of aborted) validate(e);
    expect(aborted[1]!.run.runId).toBe(aborted[0]!.run.runId);
    expect(aborted[1]!.run.runId).not.toBe(failed[0]!.run.runId);
    // The outbox holds one row per transition: a second cancel records nothing.
    await cancelRunAndJobs(app, cancelled!);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.notification
      where event = 'lineage' and (details->>'runId')::int = ${cancelled!}`.execute(app.db);
    expect(rows[0]!.n).toBe(2);
    await expectNoSecret();
  });

  it('a run whose chunks failed closes failed and says FAIL, its failed chunks in the message', async () => {
    const brittle = fx.newApp({ ENVDATA_MAX_ATTEMPTS: '1' });
    fx.simulator.setFaults('weather-history:error=500@100%');
    try {
      const { runId } = await fx.planBackfill({
        ...backfillRange('2024-06-18', '2024-06-20', { datasets: ['weather'] }),
        now: T0,
      });
      await runToEnd(brittle, runId!, 'failed');
      const events = await waitForEvents(runId!, 2);
      expect(events.map((e) => e.eventType)).toEqual(['START', 'FAIL']);
      for (const e of events) validate(e);
      const { rows: failedChunks } = await sql<{ n: number }>`
        select count(*)::int as n from envdata.chunk
        where run_id = ${runId!} and status = 'failed'`.execute(app.db);
      expect(failedChunks[0]!.n).toBeGreaterThan(0);
      expect(events[1]!.run.facets.envdata_run).toMatchObject({ status: 'failed' });
      expect(events[1]!.run.facets.errorMessage!.message).toMatch(
        new RegExp(`^${failedChunks[0]!.n} chunk\\(s\\) failed \\(.+\\): envdata retry ${runId}$`),
      );
      // Nothing landed: no hour complete, no subset; a row count of 0.
      const weather = events[1]!.outputs.find((o) => o.name.endsWith('.weather_hourly'))!;
      expect(weather.outputFacets).toEqual({
        outputStatistics: expect.objectContaining({ rowCount: 0 }),
      });
    } finally {
      fx.simulator.clearFaults();
    }
    await expectNoSecret();
  });

  it('with the receiver down, then failing, every event arrives once when it is back', async () => {
    // A second process's dispatcher competes for the same outbox.
    const second = fx.newApp({
      ENVDATA_OPENLINEAGE_URL: lineage.url,
      ENVDATA_OPENLINEAGE_API_KEY: LINEAGE_KEY,
    });
    await second.start({ lineage: dispatch });
    const before = lineage.received.length;
    await lineage.down();
    let down = true;
    try {
      const { runId: a } = await fx.planBackfill({
        ...backfillRange('2024-06-12', '2024-06-16'),
        now: T0,
      });
      await runToEnd(app, a!);
      const { runId: b } = await fx.planBackfill({
        ...backfillRange('2024-06-16', '2024-06-18', { datasets: ['weather'] }),
        now: T0,
      });
      await runToEnd(second, b!);
      // Refused while down: the dispatchers tried, the events wait.
      await pollUntil(
        async () => {
          const { total, events } = await undeliveredLineage(app.db, 100);
          // A run's end waits behind its START: the STARTs were tried and refused.
          const starts = events.filter((e) => e.snapshot.eventType === 'START');
          return total === 4 && starts.every((e) => e.lastError === 'ECONNREFUSED')
            ? { done: true }
            : { last: events.map((e) => [e.key, e.attempts, e.lastError]) };
        },
        { describe: (l) => `events not refused yet: ${JSON.stringify(l)}` },
      );
      // `envdata lineage pending --json` lists them, with why they wait, never the URL or key.
      const pending = await runCliInProcess(
        ['lineage', 'pending', '--json'],
        fx.cliEnv({
          ENVDATA_OPENLINEAGE_URL: lineage.url,
          ENVDATA_OPENLINEAGE_API_KEY: LINEAGE_KEY,
        }),
      );
      expect(pending.code).toBe(0);
      const listed = lineagePendingJson.parse(JSON.parse(pending.stdout));
      expect(listed).toMatchObject({ receiverSet: true, total: 4 });
      expect(listed.events.map((e) => `${e.runId}:${e.eventType}`)).toEqual([
        `${a}:START`,
        `${a}:COMPLETE`,
        `${b}:START`,
        `${b}:COMPLETE`,
      ]);
      expect(listed.events[0]!.lastError).toBe('ECONNREFUSED');
      expect(pending.stdout).not.toContain(LINEAGE_KEY);
      expect(pending.stdout).not.toContain(new URL(lineage.url).host);

      // Up but answering 503: still not delivered.
      lineage.setMode({ kind: 'status', status: 503 });
      await lineage.open();
      down = false;
      await lineage.waitFor((r) => r.status === 503, 2);
      expect((await undeliveredLineage(app.db, 100)).total).toBe(4);
      lineage.setMode({ kind: 'ok' });

      for (const runId of [a!, b!]) {
        const events = await waitForEvents(runId, 2);
        expect(events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
        for (const e of events) validate(e);
      }
      await pollUntil(
        async () => {
          const { total } = await undeliveredLineage(app.db, 100);
          return total === 0 ? { done: true } : { last: total };
        },
        { describe: (n) => `${String(n)} lineage events still undelivered` },
      );
      const taken = lineage.received
        .slice(before)
        .filter((r) => r.status === 200)
        .map((r) => {
          const e = r.body as unknown as Event;
          return `${String(e.run.facets.envdata_run!.runId)}:${e.eventType}`;
        });
      expect(taken.sort()).toEqual([`${a}:COMPLETE`, `${a}:START`, `${b}:COMPLETE`, `${b}:START`]);
    } finally {
      lineage.setMode({ kind: 'ok' });
      if (down) await lineage.open();
      await second.stop();
    }
    await expectNoSecret();
  });
  it('a sync: job envdata.sync, START then COMPLETE, valid', async () => {
    const sync = await startSync(app, T0);
    await runToEnd(app, sync.runId);
    const events = await waitForEvents(sync.runId, 2);
    expect(events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    for (const e of events) {
      validate(e);
      expect(e.job).toMatchObject({ namespace: 'envdata', name: 'envdata.sync' });
    }
    await expectNoSecret();
  });

  it('a rebuild: job envdata.rebuild, START then COMPLETE with the rows it printed; unreadable payloads FAIL', async () => {
    /** The events of rebuild `uuid` the receiver took, in arrival order. */
    const rebuildEvents = async (uuid: string): Promise<Event[]> => {
      const ofIt = (e: Event) => e.job?.name === 'envdata.rebuild' && e.run?.runId === uuid;
      await lineage.waitFor((r) => r.status === 200 && ofIt(r.body as unknown as Event), 2, 30_000);
      return lineage.received
        .filter((r) => r.status === 200)
        .map((r) => r.body as unknown as Event)
        .filter(ofIt);
    };
    /** `envdata rebuild ARGS`, from a CLI without ENVDATA_OPENLINEAGE_URL, and the outbox's rows. */
    const rebuild = async (...args: string[]) => {
      const before = await sql<{ id: string }>`
        select coalesce(max(notification_id), 0)::text as id from envdata.notification`.execute(
        app.db,
      );
      const result = await runCliInProcess(['rebuild', ...args], fx.cliEnv());
      const { rows } = await sql<{ key: string; rebuild_id: string | null; run_id: unknown }>`
        select dedupe_key as key, details->>'rebuildId' as rebuild_id, details->'runId' as run_id
        from envdata.notification where event = 'lineage'
          and notification_id > ${before.rows[0]!.id}::bigint
        order by notification_id`.execute(app.db);
      const printed = /rebuilt (\d+) chunk\(s\): (\d+) fact rows, (\d+) changed/.exec(
        result.stdout,
      );
      expect(printed, result.stdout + result.stderr).not.toBeNull();
      const [, , rowsPrinted, changedPrinted] = printed!.map(Number) as number[];
      return { result, outbox: rows, rows: rowsPrinted!, changed: changedPrinted! };
    };
    const count = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from envdata.weather_hourly`.execute(
          app.db,
        )
      ).rows[0]!.n;

    // A backfill by a worker that keeps the answers' bodies (the fixture's do not): the archive.
    const archiving = fx.newApp({ ENVDATA_ARCHIVE_RAW: 'true' });
    const { runId: archived } = await fx.planBackfill({
      ...backfillRange('2024-05-28', '2024-05-30'),
      now: T0,
    });
    await runToEnd(archiving, archived!);
    const ledger = await ledgerRows(archived!);
    expect(ledger.byDataset.weather).toBeGreaterThan(0);

    // Facts lost (a normalization fix, say): the rebuild writes them again from the archive.
    const held = await count();
    const { numDeletedRows } = await app.db
      .deleteFrom('weather_hourly')
      .where('observed_at', '>=', new Date('2024-05-28T00:00:00Z'))
      .where('observed_at', '<', new Date('2024-05-29T00:00:00Z'))
      .executeTakeFirst();
    const lost = Number(numDeletedRows);
    expect(lost).toBeGreaterThan(0);
    const done = await rebuild('--dataset', 'all');
    expect(done.result.code).toBe(0);
    expect(await count()).toBe(held);
    expect(done.changed).toBe(lost);

    // One row per transition in the outbox, keyed by the invocation's UUID, no run.
    expect(done.outbox).toHaveLength(2);
    const uuid = done.outbox[0]!.rebuild_id!;
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(done.outbox).toEqual([
      { key: `lineage:rebuild:${uuid}:start`, rebuild_id: uuid, run_id: null },
      { key: `lineage:rebuild:${uuid}:end`, rebuild_id: uuid, run_id: null },
    ]);

    const events = await rebuildEvents(uuid);
    expect(events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE']);
    for (const e of events) {
      validate(e);
      expect(e.job).toMatchObject({ namespace: 'envdata', name: 'envdata.rebuild' });
      expect(e.run.facets.envdata_run).toMatchObject({
        runId: null,
        rebuildId: uuid,
        attempt: 1,
        kind: 'rebuild',
        datasets: ['pollen', 'weather'],
      });
      // Its input: the archive in the warehouse, never the service.
      const database = new URL(app.config.databaseUrl).pathname.slice(1);
      expect(e.inputs).toEqual([
        {
          namespace: expect.stringMatching(/^postgres:\/\/[^@/]+:\d+$/) as unknown,
          name: `${database}.envdata.answer_body`,
        },
      ]);
      expect(e.outputs.map((o) => o.name).sort()).toEqual(
        ['pollen_hourly', 'pollen_species_hourly', 'weather_hourly'].map(
          (t) => `${database}.analytics.${t}`,
        ),
      );
      expect(e.outputs.every((o) => o.namespace === e.inputs[0]!.namespace)).toBe(true);
    }
    const [start, complete] = events as [Event, Event];
    expect(start.outputs.every((o) => o.outputFacets === undefined)).toBe(true);
    // The counts: what the rebuild printed, by dataset; the weather view's rowCount its own.
    const facet = complete.run.facets.envdata_run as {
      status: string;
      rowsLanded: Record<string, number>;
      rowsChanged: Record<string, number>;
    };
    expect(facet.status).toBe('done');
    const sum = (byDataset: Record<string, number>) =>
      Object.values(byDataset).reduce((n, v) => n + v, 0);
    expect(sum(facet.rowsLanded)).toBe(done.rows);
    expect(sum(facet.rowsChanged)).toBe(done.changed);
    expect(facet.rowsChanged.weather).toBe(lost);
    const weather = complete.outputs.find((o) => o.name.endsWith('.weather_hourly'))!;
    expect(weather.outputFacets!.outputStatistics).toMatchObject({
      rowCount: facet.rowsLanded.weather,
    });
    // The archive holds that backfill's answers only: their rows are the rows it landed.
    expect(facet.rowsLanded).toEqual(ledger.byDataset);
    expect(facet.rowsChanged).toEqual({ pollen: 0, weather: lost });
    expect(complete.run.facets.errorMessage).toBeUndefined();

    // An archived payload that cannot be read: the rebuild ends FAIL, saying which.
    const [victim] = (
      await sql<{ sha: Buffer; body: Buffer }>`
        select b.body_sha256 as sha, b.body from envdata.answer_body b
        where b.body_sha256 = (select r.body_sha256 from envdata.raw_payload r
          where r.dataset = 'weather' order by r.chunk_id limit 1)`.execute(app.db)
    ).rows;
    await sql`update envdata.answer_body set body = ${Buffer.from('not gzip')}
      where body_sha256 = ${victim!.sha}`.execute(app.db);
    try {
      // The receiver down meanwhile: `lineage pending` names the rebuild by its kind and UUID.
      await lineage.down();
      let failing: Awaited<ReturnType<typeof rebuild>>;
      try {
        failing = await rebuild('--dataset', 'weather');
        const pendingId = failing.outbox[0]!.rebuild_id!;
        const env = fx.cliEnv({ ENVDATA_OPENLINEAGE_URL: lineage.url });
        const text = await runCliInProcess(['lineage', 'pending'], env);
        expect(text.stdout).toContain(`  rebuild ${pendingId} START, recorded`);
        expect(text.stdout).toContain(`  rebuild ${pendingId} FAIL, recorded`);
        expect(text.stdout).not.toContain('run null');
        const json = lineagePendingJson.parse(
          JSON.parse((await runCliInProcess(['lineage', 'pending', '--json'], env)).stdout),
        );
        expect(json.events.map((e) => [e.key, e.runId, e.rebuildId, e.kind, e.eventType])).toEqual([
          [`lineage:rebuild:${pendingId}:start`, null, pendingId, 'rebuild', 'START'],
          [`lineage:rebuild:${pendingId}:end`, null, pendingId, 'rebuild', 'FAIL'],
        ]);
      } finally {
        await lineage.open();
      }
      expect(failing.result.code).toBe(1);
      const unreadable = Number(
        /; (\d+) archived payload\(s\) unreadable/.exec(failing.result.stdout)?.[1],
      );
      expect(unreadable).toBeGreaterThan(0);
      const failUuid = failing.outbox[0]!.rebuild_id!;
      expect(failUuid).not.toBe(uuid);
      const failed = await rebuildEvents(failUuid);
      expect(failed.map((e) => e.eventType)).toEqual(['START', 'FAIL']);
      for (const e of failed) validate(e);
      expect(failed[1]!.run.facets.envdata_run).toMatchObject({
        kind: 'rebuild',
        status: 'failed',
        errorCode: 'MALFORMED_RESPONSE',
        failedChunks: { MALFORMED_RESPONSE: unreadable },
        rowsLanded: { weather: failing.rows },
        rowsChanged: { weather: failing.changed },
      });
      expect(failed[1]!.run.facets.errorMessage!.message).toMatch(
        new RegExp(
          `^MALFORMED_RESPONSE: ${unreadable} archived payload\\(s\\) unreadable \\(chunks? \\d+`,
        ),
      );
    } finally {
      await sql`update envdata.answer_body set body = ${victim!.body}
        where body_sha256 = ${victim!.sha}`.execute(app.db);
    }
    await expectNoSecret();
  });
});
