import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { declaredPlanJson, type DeclaredPlanJson } from '../../src/cli/json/declared-plan-json.js';
import type { BackfillPlanJson } from '../../src/cli/json/backfill-plan-json.js';
import { createApp, type App } from '../../src/app.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { runOnTerminal } from '../harness/run-on-terminal.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestEnvironment } from '../harness/test-environment.js';
import { useLocationsFixture } from '../locations/locations-fixture.js';

const fx = useLocationsFixture();
/** A second, empty warehouse, for the exported file. */
const empty = useTestEnvironment();
const dir = useTempDir('envdata-declared-');
const envdata = (args: string[]) => runCliInProcess(args, fx.cliEnv());
const DAY = 24 * 3_600_000;

/** A UTC date `days` before today, as a `since`: whole days, so the plan's hours are exact. */
const daysAgo = (days: number) =>
  new Date(Math.floor(Date.now() / DAY) * DAY - days * DAY).toISOString().slice(0, 10);

const POINTS = [
  { name: 'Berlin', lat: 52.52, lng: 13.405 },
  { name: 'Munich', lat: 48.1351, lng: 11.582 },
  { name: 'Hamburg', lat: 53.5511, lng: 9.9937 },
  { name: 'Cologne', lat: 50.9375, lng: 6.9603 },
  { name: 'Vienna', lat: 48.2082, lng: 16.3738 },
  { name: 'Zurich', lat: 47.3769, lng: 8.5417 },
  { name: 'Prague', lat: 50.0755, lng: 14.4378 },
];

/** Writes `envdata.yaml` with these points and weather since `since`; returns its path. */
async function declare(
  points: readonly (typeof POINTS)[number][],
  since: string,
  extra = '',
): Promise<string> {
  const file = dir.path('envdata.yaml');
  const lines = points.map((p) => `  - { name: ${p.name}, lat: ${p.lat}, lng: ${p.lng} }`);
  await writeFile(
    file,
    `version: 1\nlocations:\n${lines.join('\n')}\n${extra}datasets:\n  weather: { since: ${since} }\n`,
  );
  return file;
}

/** `plan --json`: one document, valid, with no key its schema (docs/json-output.md) leaves out. */
async function planJson(file: string, run = envdata): Promise<DeclaredPlanJson> {
  const result = await run(['plan', '-f', file, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const raw: unknown = JSON.parse(result.stdout);
  const parsed = declaredPlanJson.safeParse(raw);
  expect(parsed.error).toBeUndefined();
  expect(parsed.data).toEqual(raw);
  return parsed.data!;
}

const runs = () =>
  fx.app.db.selectFrom('run').select(['run_id', 'request']).orderBy('run_id').execute();

let emptyApp: App;
beforeAll(() => {
  emptyApp = createApp(empty.config());
});
afterAll(async () => {
  await emptyApp.close();
});
beforeEach(async () => {
  await fx.app.db.deleteFrom('run').execute();
  await fx.app.db.deleteFrom('geocode_answer').execute();
});

describe('envdata plan and apply', () => {
  it('plan → apply → plan names the run still owed; a second apply makes no call and no run', async () => {
    const file = await declare(
      POINTS.slice(0, 2),
      daysAgo(10),
      '  - { place: Valencia, country: ES }\n',
    );
    const before = await envdata(['plan', '-f', file]);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('locations: 3 to add, 0 to retire, 0 to restore, 0 unchanged');
    expect(before.stdout).toMatch(/weather: \d+ hour\(s\) missing for 3 location\(s\)/);
    expect(fx.geocodeCalls()).toBe(1);
    expect(await fx.locationRows()).toEqual([]);

    // The answer is kept: planning again, before any apply, asks the service nothing.
    expect((await envdata(['plan', '-f', file])).stdout).toBe(before.stdout);
    expect(fx.geocodeCalls()).toBe(1);

    const apply = await envdata(['apply', '-f', file, '--yes']);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/applied .*: 3 added, 0 retired, 0 restored, run \d+/);
    const [run] = await runs();
    const text = await readFile(file, 'utf8');
    expect(run?.request).toMatchObject({
      declared: { digest: createHash('sha256').update(text).digest('hex') },
    });
    expect((await fx.locationRows()).map((r) => r.name)).toEqual(['Berlin', 'Munich', 'Valencia']);

    // Nothing new, but the run is not done: plan and apply name it instead of "no changes".
    fx.simulator.resetStats();
    const after = await envdata(['plan', '-f', file]);
    expect(after.stdout).toMatch(
      new RegExp(`^nothing new to plan, but 1 run is still owed: run ${run!.run_id} backfill 0 of`),
    );
    const again = await envdata(['apply', '-f', file, '--yes']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`^nothing new to apply, but 1 run is still owed: run ${run!.run_id} backfill`),
    );
    expect(fx.simulator.stats().total).toBe(0);
    expect(await runs()).toHaveLength(1);
  });

  it('five more locations and since a year back plan exactly the missing hours, at the calls backfill --dry-run gives', async () => {
    const first = await declare(POINTS.slice(0, 2), daysAgo(30));
    expect((await envdata(['apply', '-f', first, '--yes'])).code).toBe(0);

    const file = await declare(POINTS, daysAgo(395));
    const plan = await planJson(file);
    expect(plan.locations.add.map((l) => l.name)).toEqual(POINTS.slice(2).map((p) => p.name));
    const [weather] = plan.history;
    const to = Date.parse(weather!.to);
    const since = Date.parse(`${daysAgo(395)}T00:00:00Z`);
    // The first run holds the last 30 days of the first two: left to it, not planned again.
    expect(weather!.hours).toBe(2 * 365 * 24 + (5 * (to - since)) / 3_600_000);

    const apply = await envdata(['apply', '-f', file, '--yes']);
    expect(apply.code).toBe(0);
    const second = (await runs())[1]!;
    expect((await envdata(['cancel', String(second.run_id)])).code).toBe(0);
    const dryRun = await envdata([
      'backfill',
      '--dataset',
      'weather',
      '--from',
      daysAgo(395),
      '--to',
      weather!.to.slice(0, 19).replace('T', ' '),
      '--dry-run',
      '--json',
    ]);
    expect(dryRun.code).toBe(0);
    const backfill = JSON.parse(dryRun.stdout) as BackfillPlanJson;
    expect(backfill.plan.calls).toBe(plan.plan.calls);
    expect(backfill.plan.chunks).toBe(plan.plan.chunks);
  });

  it('a location taken out of the file is retired, its row kept, and nothing is planned for it', async () => {
    const file = await declare(POINTS.slice(0, 2), daysAgo(5));
    expect((await envdata(['apply', '-f', file, '--yes'])).code).toBe(0);
    await declare(POINTS.slice(0, 1), daysAgo(7));
    const plan = await planJson(file);
    expect(plan.locations.retire.map((l) => l.name)).toEqual(['Munich']);
    expect(plan.history[0]!.locations).toBe(1);
    expect(plan.history[0]!.hours).toBe(2 * 24);

    expect((await envdata(['apply', '-f', file, '--yes'])).code).toBe(0);
    const munich = (await fx.locationRows()).find((r) => r.name === 'Munich');
    expect(munich?.retired_at).not.toBeNull();
    const planned = await fx.app.db
      .selectFrom('run_gap')
      .select('location_id')
      .where('run_id', '=', (await runs())[1]!.run_id)
      .execute();
    expect(planned.map((g) => g.location_id)).not.toContain(munich?.location_id);

    await declare(POINTS.slice(0, 2), daysAgo(7));
    const back = await planJson(file);
    expect(back.locations.restore.map((l) => l.name)).toEqual(['Munich']);
  });

  it('a moved point is refused with how to replace it, and nothing is written', async () => {
    const file = await declare(POINTS.slice(0, 1), daysAgo(2));
    expect((await envdata(['apply', '-f', file, '--yes'])).code).toBe(0);
    await declare([{ name: 'Berlin', lat: 52.4, lng: 13.405 }], daysAgo(2));
    const result = await envdata(['apply', '-f', file, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /envdata\.yaml:3:5: "Berlin" is registered at 52\.52, 13\.405 .*coordinates never change.*such as "Berlin 2"/,
    );
    expect(await runs()).toHaveLength(1);
  });

  it('the exported file, applied to an empty database, plans the same history', async () => {
    const file = await declare(POINTS.slice(0, 3), daysAgo(20));
    const planned = await planJson(file);
    expect((await envdata(['apply', '-f', file, '--yes'])).code).toBe(0);
    const exported = dir.path('exported.yaml');
    const written = await envdata(['export-config', '-f', exported]);
    expect(written.code).toBe(0);
    expect(await readFile(exported, 'utf8')).toContain(`weather:\n    since: ${daysAgo(20)}\n`);
    const onEmpty = await planJson(exported, (args) =>
      runCliInProcess(args, { ...fx.cliEnv(), DATABASE_URL: empty.databaseUrl }),
    );
    expect(onEmpty.history).toEqual(planned.history);
    expect(onEmpty.plan).toEqual(planned.plan);
    expect(onEmpty.locations.add.map((l) => [l.name, l.lat, l.lng])).toEqual(
      planned.locations.add.map((l) => [l.name, l.lat, l.lng]),
    );
    const refused = await envdata(['export-config', '-f', exported]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('add --force');
  });

  it('two applies at once make one run', async () => {
    const file = await declare(POINTS.slice(0, 4), daysAgo(3));
    const both = await Promise.all([
      envdata(['apply', '-f', file, '--yes']),
      envdata(['apply', '-f', file, '--yes']),
    ]);
    expect(both.map((r) => r.code)).toEqual([0, 0]);
    expect(both.filter((r) => /^applied .*, run \d+/m.test(r.stdout))).toHaveLength(1);
    expect(await runs()).toHaveLength(1);
    expect(await fx.locationRows()).toHaveLength(4);
  });

  it('apply --wait fetches the history to the end; the next plan shows no changes', async () => {
    const file = await declare(POINTS.slice(0, 1), daysAgo(2));
    const result = await runEnvdata(['apply', '-f', file, '--yes', '--wait'], fx.cliEnv());
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^run (\d+) \(backfill\) done: (\d+)\/\2 chunks done, 0 failed/m);
    expect(fx.simulator.stats().byEndpoint['weather-history']).toBeGreaterThan(0);
    fx.simulator.resetStats();
    expect((await envdata(['plan', '-f', file])).stdout).toBe(
      `no changes: the warehouse is as ${file} declares it\n`,
    );
    expect(fx.simulator.stats().total).toBe(0);
  });

  it('apply on a terminal shows the plan and asks: n does nothing, y applies it', async () => {
    const file = await declare(POINTS.slice(0, 1), daysAgo(1));
    const no = runOnTerminal(['apply', '-f', file], fx.cliEnv());
    await no.waitFor('Apply this plan? [y/N] ');
    expect(no.screen()).toContain('locations: 1 to add, 0 to retire, 0 to restore, 0 unchanged');
    no.type('n\r');
    expect(await no.exited).toBe(2);
    expect(no.screen()).toContain('nothing was done (answer y to apply)');
    expect(await fx.locationRows()).toEqual([]);

    const yes = runOnTerminal(['apply', '-f', file], fx.cliEnv());
    await yes.waitFor('Apply this plan? [y/N] ');
    yes.type('y\r');
    expect(await yes.exited).toBe(0);
    expect(yes.screen()).toMatch(/applied .*: 1 added, 0 retired, 0 restored, run \d+/);
    expect(await runs()).toHaveLength(1);
  });

  it('a group of locations gets the since of its own', async () => {
    const file = await declare(
      POINTS.slice(0, 2),
      daysAgo(2),
      '  - { name: Zermatt, lat: 46.0207, lng: 7.7491, group: alps }\n',
    );
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text.replace(
        'weather: { since',
        'weather: { groups: { alps: { since: ' + daysAgo(5) + ' } }, since',
      ),
    );
    const plan = await planJson(file);
    const [weather] = plan.history;
    const hoursSince = (days: number) =>
      (Date.parse(weather!.to) - Date.parse(`${daysAgo(days)}T00:00:00Z`)) / 3_600_000;
    expect(weather!.from).toBe(`${daysAgo(5)}T00:00:00.000Z`);
    expect(weather!.hours).toBe(2 * hoursSince(2) + hoursSince(5));
  });

  it('an ambiguous place exits 2 at its position, with the countries to choose from', async () => {
    const file = await declare(POINTS.slice(0, 1), daysAgo(1), '  - { place: Valencia }\n');
    const result = await envdata(['plan', '-f', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/envdata\.yaml:4:5: the place is ambiguous: .*country: VE or ES/);
    expect(await fx.locationRows()).toEqual([]);
  });

  it('apply off a terminal without --yes changes nothing and says how to confirm', async () => {
    const file = await declare(POINTS.slice(0, 1), daysAgo(1));
    const result = await envdata(['apply', '-f', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('add --yes to confirm (nothing was done)');
    expect(await fx.locationRows()).toEqual([]);
    expect(await runs()).toEqual([]);
  });

  it('a bad file exits 2 listing every problem with its position, and writes nothing', async () => {
    const file = dir.path('bad.yaml');
    await writeFile(
      file,
      'version: 1\nlocations:\n  - { name: Berlin, lat: 52.52 }\n  - { name: Berlin, lat: 1, lng: 1 }\ndatasets:\n  weather: { since: yesterday }\n',
    );
    const result = await envdata(['plan', '-f', file]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${file}:3:5: locations[0].lng: missing`);
    expect(result.stderr).toContain(`${file}:6:21: datasets.weather.since is not a date`);
    expect((await envdata(['apply', '-f', file, '--yes'])).code).toBe(2);
    expect(await fx.locationRows()).toEqual([]);
  });
});
