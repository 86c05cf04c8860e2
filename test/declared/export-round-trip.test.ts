import { readFile, writeFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { declaredPlanJson, type DeclaredPlanJson } from '../../src/cli/json/declared-plan-json.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useLocationsFixture } from '../locations/locations-fixture.js';

/**
 * `envdata export-config` round-trips (issue 38): the file it writes, planned on the same
 * warehouse, adds, retires and buys nothing. Per-group `since`s (relative ones included) are
 * kept as written, places stay places, and the first line is the schema line README shows.
 * Through the built CLI, as a user runs it; no worker: the runs apply starts stay pending, so the
 * assertions read `plan --json` (no location added, retired or restored; no chunk, no call).
 */

const fx = useLocationsFixture();
const dir = useTempDir('envdata-export-');
const envdata = (args: string[]) => runEnvdata(args, fx.cliEnv());

const DECLARED = `version: 1
locations:
  - { name: Berlin, lat: 52.52, lng: 13.405 }
  - { name: Zermatt, lat: 46.0207, lng: 7.7491, group: alps }
  - { place: Valencia, country: ES, ingestByPlace: true }
  - { name: Innsbruck, lat: 47.2692, lng: 11.4041, group: alps }
datasets:
  pollen: { since: -90d, groups: { alps: { since: -1y } } }
  weather: { since: -30d, groups: { alps: { since: -1y } } }
`;

/** `plan --json` of `file`: one valid document. */
async function planJson(file: string): Promise<DeclaredPlanJson> {
  const result = await envdata(['plan', '-f', file, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return declaredPlanJson.parse(JSON.parse(result.stdout));
}

/** What a plan would change: nothing, when the file is the warehouse as it is. */
const changesOf = (plan: DeclaredPlanJson) => ({
  add: plan.locations.add.map((l) => l.name),
  retire: plan.locations.retire.map((l) => l.name),
  restore: plan.locations.restore.map((l) => l.name),
  missingHours: plan.history.map((h) => [h.dataset, h.hours]),
  chunks: plan.plan.chunks,
  calls: plan.plan.calls,
  geocodeCalls: plan.geocodeCalls,
});
const NOTHING = {
  add: [],
  retire: [],
  restore: [],
  missingHours: [
    ['pollen', 0],
    ['weather', 0],
  ],
  chunks: 0,
  calls: 0,
  geocodeCalls: 0,
};

/** The schema line of README's envdata.yaml, which the exported file must begin with. */
async function readmeSchemaLine(): Promise<string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const line = readme.split('\n').find((l) => l.startsWith('# yaml-language-server: $schema='));
  expect(line).toBeDefined();
  return line!;
}

beforeEach(async () => {
  await fx.app.db.deleteFrom('run').execute();
  await fx.app.db.deleteFrom('geocode_answer').execute();
});

describe('envdata export-config', () => {
  it('writes a file that, planned on the same warehouse, changes nothing: groups, since and places as declared', async () => {
    const file = dir.path('envdata.yaml');
    await writeFile(file, DECLARED);
    const applied = await envdata(['apply', '-f', file, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/applied .*: 4 added, 0 retired, 0 restored, run \d+/);

    const exported = dir.path('exported.yaml');
    const written = await envdata(['export-config', '-f', exported]);
    expect(written.code, written.stderr).toBe(0);
    const text = await readFile(exported, 'utf8');
    expect(text.split('\n')[0]).toBe(await readmeSchemaLine());
    expect(text.split('\n')[0]).not.toContain('$schema=docs/');

    const declared = parse(text) as Record<string, unknown>;
    expect(declared.datasets).toEqual({
      pollen: { since: '-90d', groups: { alps: { since: '-1y' } } },
      weather: { since: '-30d', groups: { alps: { since: '-1y' } } },
    });
    // Points as points, each with its group; the place as a place, by its text and name.
    expect(declared.locations).toMatchObject([
      { name: 'Berlin', lat: 52.52, lng: 13.405 },
      { name: 'Zermatt', lat: 46.0207, lng: 7.7491, group: 'alps' },
      { place: 'Valencia', name: 'Valencia', country: 'ES', ingestByPlace: true },
      { name: 'Innsbruck', lat: 47.2692, lng: 11.4041, group: 'alps' },
    ]);
    const [berlin, , valencia] = declared.locations as Record<string, unknown>[];
    expect(Object.keys(berlin!)).not.toContain('group');
    expect(Object.keys(valencia!).sort()).toEqual(['country', 'ingestByPlace', 'name', 'place']);

    fx.simulator.resetStats();
    expect(changesOf(await planJson(exported))).toEqual(NOTHING);
    // The declared file itself plans nothing more either: the exported one is the same state.
    expect(changesOf(await planJson(file))).toEqual(NOTHING);
    expect(fx.simulator.stats().total).toBe(0);
  });

  it('keeps what the file last applied declared, even when applying it bought nothing', async () => {
    const file = dir.path('envdata.yaml');
    await writeFile(file, DECLARED);
    expect((await envdata(['apply', '-f', file, '--yes'])).code).toBe(0);
    // Less history for the alps: nothing to add or buy, but it is what is declared now.
    await writeFile(
      file,
      DECLARED.replaceAll('{ alps: { since: -1y } }', '{ alps: { since: -60d } }'),
    );
    const again = await envdata(['apply', '-f', file, '--yes']);
    expect(again.code, again.stderr).toBe(0);
    // Nothing added or bought (the first apply's run, with no worker here, is still owed).
    expect(again.stdout).toMatch(/no changes|nothing new to apply/);
    expect(again.stdout).not.toMatch(/^applied /m);

    const exported = await envdata(['export-config', '-f', '-']);
    expect(exported.code, exported.stderr).toBe(0);
    expect((parse(exported.stdout) as Record<string, unknown>).datasets).toEqual({
      pollen: { since: '-90d', groups: { alps: { since: '-60d' } } },
      weather: { since: '-30d', groups: { alps: { since: '-60d' } } },
    });
  });

  it('leaves out the since of a group none of whose locations is active any more', async () => {
    const file = dir.path('envdata.yaml');
    await writeFile(file, DECLARED);
    expect((await envdata(['apply', '-f', file, '--yes'])).code).toBe(0);
    for (const name of ['Zermatt', 'Innsbruck']) {
      const removed = await envdata(['locations', 'remove', name]);
      expect(removed.code, removed.stderr).toBe(0);
    }
    const exported = dir.path('without-alps.yaml');
    const written = await envdata(['export-config', '-f', exported]);
    expect(written.code, written.stderr).toBe(0);
    expect((parse(await readFile(exported, 'utf8')) as Record<string, unknown>).datasets).toEqual({
      pollen: { since: '-90d' },
      weather: { since: '-30d' },
    });
    expect(changesOf(await planJson(exported))).toEqual(NOTHING);
  });
});
