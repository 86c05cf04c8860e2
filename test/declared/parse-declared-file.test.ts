import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import type { DeclaredProblem } from '../../src/declared/declared-problem.js';
import { parseDeclaredFile } from '../../src/declared/parse-declared-file.js';
import { readDeclaredLocationFile } from '../../src/declared/read-declared-location-file.js';
import { useTempDir } from '../harness/temp-dir.js';

const dir = useTempDir('envdata-declared-');
const parse = (text: string, env: Record<string, string> = {}) =>
  parseDeclaredFile(text, {
    fileName: 'envdata.yaml',
    env,
    readLocationFile: (name) => readDeclaredLocationFile(name, dir.path(''), 1_000),
  });

/** The problems a bad file is refused with, as `line:column message`. */
async function problemsOf(text: string, env?: Record<string, string>): Promise<string[]> {
  const error = await parse(text, env).then(
    () => expect.fail('the file was accepted'),
    (e: unknown) => e,
  );
  if (!isEnvdataError(error) || error.code !== 'VALIDATION_FAILED') throw error;
  return (error.details.problems as DeclaredProblem[]).map(
    (p) => `${p.line}:${p.column} ${p.message}`,
  );
}

describe('parseDeclaredFile', () => {
  it('reads points, places, files and datasets with their groups', async () => {
    await writeFile(dir.path('alps.csv'), 'name,lat,lng\nZermatt,46.02,7.75\n');
    const file = await parse(
      `version: 1
locations:
  - { name: Berlin, lat: 52.52, lng: 13.405, country: de }
  - place: Valencia
    country: ES
    ingestByPlace: true
  - file: alps.csv
    group: alps
datasets:
  pollen:
    since: 2016-01-01
    groups: { alps: { since: -2y } }
  weather: { since: '\${WEATHER_SINCE}' }
`,
      { WEATHER_SINCE: '-30d' },
    );
    expect(file.locations).toEqual([
      {
        kind: 'point',
        name: 'Berlin',
        lat: 52.52,
        lng: 13.405,
        country: 'DE',
        group: undefined,
        ref: 'envdata.yaml:3:5',
      },
      {
        kind: 'place',
        place: 'Valencia',
        name: undefined,
        country: 'ES',
        ingestByPlace: true,
        group: undefined,
        ref: 'envdata.yaml:4:5',
      },
      {
        kind: 'point',
        name: 'Zermatt',
        lat: 46.02,
        lng: 7.75,
        country: undefined,
        group: 'alps',
        ref: 'envdata.yaml:7:5 (alps.csv line 2)',
      },
    ]);
    expect(file.datasets).toEqual([
      { dataset: 'pollen', since: '2016-01-01', groups: new Map([['alps', '-2y']]) },
      { dataset: 'weather', since: '-30d', groups: new Map() },
    ]);
    expect(file.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads a dataset's drift policy, and refuses one it does not know where it is written", async () => {
    const file = await parse(
      'version: 1\ndatasets:\n  weather: { since: -30d, drift: quarantine }\n  pollen: { since: -30d }\n',
    );
    expect(Object.fromEntries(file.datasets.map((d) => [d.dataset, d.drift]))).toEqual({
      weather: 'quarantine',
      pollen: undefined,
    });
    const [problem] = await problemsOf(
      'version: 1\ndatasets:\n  weather:\n    since: -30d\n    drift: ignore\n',
    );
    expect(problem).toMatch(/^5:12 .*evolve.*quarantine.*freeze/);
  });

  it('a YAML syntax error is refused with its line and column', async () => {
    expect(await problemsOf('version: 1\nlocations: [\n  - a\n')).toEqual([
      '3:3 Block collections are not allowed within flow collections',
      '4:1 Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  it('an unknown key is refused where the key is written', async () => {
    expect(
      await problemsOf('version: 1\ndatasets:\n  pollen:\n    since: -30d\n    sinse: -1d\n'),
    ).toEqual(['5:5 datasets.pollen.sinse: unknown key "sinse" — did you mean \'since\'?']);
  });

  it('a bad date is refused with what to write', async () => {
    const [problem] = await problemsOf('version: 1\ndatasets:\n  weather: { since: 2016-13-01 }\n');
    expect(problem).toMatch(/^3:21 datasets\.weather\.since is not a date: write a UTC date/);
  });

  it('a duplicate location is refused by name as it reads, and by point', async () => {
    expect(
      await problemsOf(`version: 1
locations:
  - { name: Berlin, lat: 52.52, lng: 13.405 }
  - { name: BERLIN, lat: 48.1, lng: 11.5 }
  - { name: Mitte, lat: 52.52001, lng: 13.40501 }
`),
    ).toEqual([
      '4:5 locations[1]: duplicate location: the name of envdata.yaml:4:5 is also that of envdata.yaml:3:5',
      '5:5 locations[2]: duplicate location: the point of envdata.yaml:5:5 is also that of envdata.yaml:3:5',
    ]);
  });

  it('lists every problem at once, in file order, with nothing else read', async () => {
    await writeFile(dir.path('bad.csv'), 'name,lat,lng\nFar,95,0\n');
    const problems = await problemsOf(`version: 2
locations:
  - { name: Berlin, lat: 52.52, lng: 13.405, colour: red }
  - { place: Valencia, country: XX }
  - { name: Munich, lat: north, lng: 11.58 }
  - file: bad.csv
  - file: missing.csv
  - { name: Key, lat: 1, lng: 1, country: '\${NOPE}' }
  - { name: Twice, lat: 2, lng: 2, lat: 3 }
datasets:
  pollen: { since: 2016-02-30 }
  weather: { sinse: -30d }
  dust: { since: -1d }
token: sk_live_4eC39HqLyjWDarjtT1zdp7dc
`);
    expect(problems).toEqual([
      expect.stringMatching(/^1:10 version: /),
      '3:46 locations[0].colour: unknown key "colour"',
      expect.stringMatching(/^4:33 locations\[1\]\.country: must be an ISO 3166-1 alpha-2/),
      '5:26 locations[2].lat: latitude must be a number, not text',
      expect.stringMatching(/^6:11 file: bad\.csv: line 2: lat /),
      expect.stringMatching(/^7:11 file: missing\.csv: cannot read it \(ENOENT\)/),
      '8:43 locations[5].country: ${NOPE}: NOPE is not set in the environment',
      '9:36 Map keys must be unique',
      expect.stringMatching(/^11:20 datasets\.pollen\.since is not a date/),
      '12:12 datasets.weather.since: missing',
      '12:14 datasets.weather.sinse: unknown key "sinse" — did you mean \'since\'?',
      '13:3 datasets.dust: unknown key "dust"',
      '14:1 token: unknown key "token"',
      expect.stringMatching(/^14:8 token: looks like a secret/),
    ]);
  });

  it('refuses a URL with credentials, and reads nothing from it', async () => {
    const problems = await problemsOf(
      'version: 1\nlocations:\n  - { file: "https://user:hunter2@example.com/x.csv" }\n',
    );
    expect(problems).toEqual([
      expect.stringMatching(/^3:13 locations\[0\]\.file: looks like a secret/),
    ]);
  });
});
