import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { statusJson } from '../../src/cli/json/status-json.js';
import { insertLocation } from '../../src/locations/insert-location.js';
import { retireLocations } from '../../src/ledger/remove-locations.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
let app: App;
/** The hours the fixtures were landed between; the clock may turn an hour before a command runs. */
let landedFrom: Date;
let landedTo: Date;
const vars = (extra: Record<string, string> = {}) =>
  env.cliEnv({
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
    ENVDATA_FRESHNESS_MAX_LAG: '36h',
    ...extra,
  });
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[[0-9;]*m/;

/** Lands `[now - hoursAgo - 24 h, now - hoursAgo)` of `dataset` for a location, in the coverage. */
async function landed(locationId: number, dataset: 'pollen' | 'weather', hoursAgo: number) {
  await sql`
    insert into envdata.coverage (location_id, dataset, landed)
    values (${locationId}, ${dataset}::envdata.dataset, tstzmultirange(tstzrange(
      date_trunc('hour', now()) - make_interval(hours => ${hoursAgo + 24}),
      date_trunc('hour', now()) - make_interval(hours => ${hoursAgo}))))`.execute(app.db);
}

async function hourNow(): Promise<Date> {
  const { rows } = await sql<{ hour: Date }>`select date_trunc('hour', now()) as hour`.execute(
    app.db,
  );
  return rows[0]!.hour;
}

beforeAll(async () => {
  app = createApp(env.config());
  landedFrom = await hourNow();
  const add = (name: string, lat: number, lng: number) =>
    insertLocation(app.db, { name, lat, lng, registeredBy: 'coordinates' });
  const berlin = await add('Berlin', 52.52, 13.405); // fresh in both datasets
  const chicago = await add('Chicago', 41.8781, -87.6298); // weather 3 days behind
  const brisbane = await add('Brisbane', -27.4698, 153.0251); // pollen never ingested
  const munich = await add('Munich', 48.1351, 11.582); // retired, and long stale
  await landed(berlin.locationId, 'pollen', 0);
  await landed(berlin.locationId, 'weather', 1);
  await landed(chicago.locationId, 'pollen', 2);
  await landed(chicago.locationId, 'weather', 72);
  await landed(brisbane.locationId, 'weather', 0);
  await landed(munich.locationId, 'weather', 500);
  await retireLocations(app.db, [munich]);
  landedTo = await hourNow();
});

afterAll(async () => {
  await app.close();
});

describe('envdata status', () => {
  it('shows one aligned row per active location with both datasets, stale first', async () => {
    const ranFrom = await hourNow();
    const result = await runCliInProcess(['status'], vars());
    const ranTo = await hourNow();
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('freshness of'));
    expect(lines[at]).toBe('freshness of 3 location(s), stale beyond 36 h: 2 stale, listed first');
    const table = lines.slice(at + 1, at + 5);
    expect(table[0]).toMatch(
      /^ {2}state {2}location {2}pollen last hour {2}lag +weather last hour {2}lag$/,
    );
    // Never ingested is the longest lag: Brisbane, then Chicago, then the fresh Berlin.
    expect(table[1]).toMatch(/^ {2}STALE {2}Brisbane {2}never {13}— +\d{4}-\d\d-\d\d \d\d:00 +\S/);
    // 72 h behind when landed, plus any hour the clock turned between landing and the command.
    const hours = (a: Date, b: Date) => (a.getTime() - b.getTime()) / 3_600_000;
    const turned = [];
    for (let h = hours(ranFrom, landedTo); h <= hours(ranTo, landedFrom); h += 1) turned.push(h);
    expect(table[2]).toMatch(
      new RegExp(
        `^ {2}STALE {2}Chicago {3}\\d{4}-\\d\\d-\\d\\d \\d\\d:00 .* 3 d (${turned.join('|')}) h$`,
      ),
    );
    expect(table[3]).toMatch(/^ {2}ok {5}Berlin {4}\d{4}-\d\d-\d\d \d\d:00 /);
    // Every column starts at the same offset on every row.
    const starts = (line: string) => [...line.matchAll(/(?<= {2})\S/g)].map((m) => m.index);
    for (const row of table.slice(1)) expect(starts(row)).toEqual(starts(table[0]!));
    expect(lines[at + 5] ?? '').toBe('');
    expect(result.stdout).not.toContain('Munich');
    expect(result.stdout).not.toMatch(ESCAPE);
  });

  it('--json gives each active location the freshness of every dataset, stale first', async () => {
    const result = await runCliInProcess(['status', '--json'], vars());
    expect(result.code, result.stderr).toBe(0);
    const parsed = statusJson.parse(JSON.parse(result.stdout));
    expect(parsed.maxLagHours).toBe(36);
    expect(parsed.freshness.map((r) => [r.name, r.stale])).toEqual([
      ['Brisbane', true],
      ['Chicago', true],
      ['Berlin', false],
    ]);
    expect(parsed.freshness[0]!.datasets.pollen).toEqual({
      lastHour: null,
      lagHours: null,
      knownEmpty: false,
      stale: true,
    });
    const fresh = { lastHour: expect.any(String), lagHours: expect.any(Number), knownEmpty: false };
    expect(parsed.freshness[2]!.datasets).toEqual({
      pollen: { ...fresh, stale: false },
      weather: { ...fresh, stale: false },
    });
    expect(result.stdout).not.toContain('Munich');
  });

  it('colours on a terminal, unless NO_COLOR is set', async () => {
    const coloured = await runCliInProcess(['status'], vars(), { stdoutIsTty: true });
    expect(coloured.stdout).toMatch(ESCAPE);
    const plain = await runCliInProcess(['status'], vars({ NO_COLOR: '1' }), {
      stdoutIsTty: true,
    });
    expect(plain.stdout).not.toMatch(ESCAPE);
    // Same table, once the colours are taken out (lags in minutes aside: a minute may turn
    // between the two commands).
    const minutes = (text: string) => text.replace(/\d+ min\b/g, 'N min');
    // eslint-disable-next-line no-control-regex
    expect(minutes(coloured.stdout.replace(/\x1b\[[0-9;]*m/g, ''))).toBe(minutes(plain.stdout));
  });

  it('--check exits 1 and names the lagging pairs', async () => {
    const result = await runCliInProcess(['status', '--check'], vars());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'envdata: 2 location/dataset pair(s) lag more than 36 h: Chicago weather, Brisbane pollen\n',
    );
  });

  it('--check exits 1 on a database with pending migrations, saying so in one line', async () => {
    const last = await sql<{ name: string; timestamp: string }>`
      delete from public.envdata_migration
      where name = (select max(name) from public.envdata_migration)
      returning name, timestamp`.execute(app.db);
    try {
      const result = await runCliInProcess(['status', '--check'], vars());
      expect(result.code).toBe(1);
      const dbName = new URL(env.databaseUrl).pathname.slice(1);
      expect(result.stderr).toBe(
        `envdata: database ${dbName} is 1 migration(s) behind this version of envdata: run \`envdata migrate\`\n`,
      );
      expect(result.stdout).toContain('1 pending migration(s): run `envdata migrate`');
    } finally {
      const row = last.rows[0]!;
      await sql`insert into public.envdata_migration (name, timestamp)
        values (${row.name}, ${row.timestamp})`.execute(app.db);
    }
  });
});
