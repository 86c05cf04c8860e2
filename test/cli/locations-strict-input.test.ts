import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRAGUE } from '../fixtures/places.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { startStubService, type StubService } from '../harness/start-stub-service.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useLocationsFixture } from '../locations/locations-fixture.js';

// Strict input for locations, on the command line: plain decimals, names without control or
// bidirectional characters, ids and names that cannot be confused, countries that contain the
// point. Every refusal exits 2, says what failed and what to do, and writes nothing.

const fx = useLocationsFixture();
const dir = useTempDir('envdata-strict-');
let stub: StubService;

/** `locations add` of a named point with a country. */
const addPoint = (lat: string | number, lng: string | number, name: string, country: string) => [
  'locations',
  'add',
  '--lat',
  String(lat),
  '--lng',
  String(lng),
  '--name',
  name,
  '--country',
  country,
];

/** Reverse geocoding that names points the way a careless upstream might. */
function reverseGeocodeBody(lat: number): string {
  const city = lat > 40 ? 'Barce\u202Elona\nCentre' : '12345';
  return JSON.stringify({
    message: 'Success',
    data: [
      {
        lat: String(lat),
        lng: '2.1686',
        address: { label: `${city}, Spain\u2066`, countryCode: 'ES', city },
      },
    ],
  });
}

beforeAll(async () => {
  stub = await startStubService((request) =>
    request.path === '/geocode/reverse/by-lat-lng'
      ? { status: 200, body: reverseGeocodeBody(Number(request.query.get('lat'))) }
      : { status: 404, body: '{"message":"Not found"}' },
  );
});
afterAll(async () => {
  await stub.close();
});

/** In this process (the parsing and exit codes of the binary, without its start-up per case). */
const envdata = (args: string[], extra?: Record<string, string>) =>
  runCliInProcess(args, fx.cliEnv(extra));
const rows = () => fx.locationRows();

/** Runs `envdata ARGS`, expects exit 2 with `message`, no call and an unchanged table. */
async function refused(args: string[], message: RegExp, extra?: Record<string, string>) {
  const before = await rows();
  const result = await envdata(args, extra);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
  expect(await rows()).toEqual(before);
  expect(fx.simulator.stats().total).toBe(0);
  return result;
}

describe('numbers are plain decimals', () => {
  it.each([
    ['--lat', '0x10'],
    ['--lat', ' 52.5'],
    ['--lat', '1e1'],
    ['--lng', '+13'],
    ['--lng', '13.'],
    ['--lat', 'Infinity'],
  ])('%s "%s" exits 2 and writes nothing', async (flag, value) => {
    const point: Record<string, string> = { '--lat': '52.5', '--lng': '13.4', [flag]: value };
    await refused(
      ['locations', 'add', '--lat', point['--lat']!, '--lng', point['--lng']!, '--name', 'X'],
      new RegExp(
        `${flag} must be a plain decimal number such as [-0-9.]+ \\(got "${value.replace('+', '\\+')}"\\)`,
      ),
    );
  });

  it('a location file with " 52.5" or 1e1 exits 2 naming the rows, and writes nothing', async () => {
    const csv = await dir.write(
      'spaced.csv',
      'name,lat,lng\nOk,52.5,13.4\nSpaced, 52.5,13.5\nExp,1e1,13\n',
    );
    const result = await refused(['locations', 'import', csv], /2 problem\(s\) in the file/);
    expect(result.stderr).toContain(
      'line 3: lat must be a plain decimal number such as 52.52 (got " 52.5")',
    );
    expect(result.stderr).toContain(
      'line 4: lat must be a plain decimal number such as 52.52 (got "1e1")',
    );
    const json = await dir.write(
      'hex.json',
      JSON.stringify([{ name: 'Hex', lat: '0x10', lng: 1 }]),
    );
    await refused(['locations', 'import', json], /index 0: lat must be a plain decimal number/);
  });
});

describe('names and places hold no control or bidirectional characters', () => {
  it.each([
    [
      'a right-to-left override',
      'Bonn\u202Eyrreb',
      /--name contains U\+202E \(right-to-left override\) at character 5/,
    ],
    [
      'a left-to-right isolate',
      '\u2066Berlin',
      /--name contains U\+2066 \(left-to-right isolate\) at character 1/,
    ],
    ['a tab', 'Tab\there', /--name contains U\+0009 \(tab\) at character 4/],
    ['a C1 control', 'Ber\u0085lin', /--name contains U\+0085 \(a control character\)/],
    ['a right-to-left mark', 'Ber\u200Flin', /--name contains U\+200F \(right-to-left mark\)/],
  ])('--name with %s exits 2 and writes nothing', async (_what, name, message) => {
    const result = await refused(
      ['locations', 'add', '--lat', '52.5', '--lng', '13.4', '--name', name],
      message,
    );
    expect(result.stderr).toMatch(
      /type it again without control or bidirectional formatting characters/,
    );
  });

  it('--place with a bidirectional character exits 2 before any call', async () => {
    await refused(['locations', 'add', '--place', 'Ber\u202Alin'], /--place contains U\+202A/);
  });

  it('an import row with one exits 2 naming the row', async () => {
    const json = await dir.write(
      'bidi.json',
      JSON.stringify([
        { name: 'Ok', lat: 1, lng: 1 },
        { name: 'a\u2067b', lat: 2, lng: 2 },
      ]),
    );
    await refused(
      ['locations', 'import', json],
      /index 1: name contains U\+2067 \(right-to-left isolate\)/,
    );
  });

  it("cleans names that come back from the service's reverse geocoding", async () => {
    const result = await envdata(['locations', 'add', '--lat', '41.3874', '--lng', '2.1686'], {
      ENVDATA_BASE_URL: stub.url,
    });
    expect(result.code, result.stderr).toBe(0);
    expect((await rows()).map((r) => r.name)).toEqual(['Barcelona Centre']);
  });

  it('asks for a --name when the service names a point with digits only', async () => {
    const before = await rows();
    const result = await envdata(['locations', 'add', '--lat', '10', '--lng', '2.1686'], {
      ENVDATA_BASE_URL: stub.url,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /the service's name for this place "12345" is only digits, which read as a location id .*: give the location a --name/,
    );
    expect(await rows()).toEqual(before);
  });
});

describe('ids and names cannot be confused', () => {
  it.each([
    [
      '2',
      /--name "2" is only digits, which read as a location id .*: add a letter, such as "Site 2"/,
    ],
    ['id:5', /--name "id:5" starts with "id:" or "name:"/],
  ])('a --name of %s is refused at registration', async (name, message) => {
    await refused(['locations', 'add', '--lat', '52.5', '--lng', '13.4', '--name', name], message);
  });

  it("a bare number that is an id and another location's name is refused; id: and name: pick one", async () => {
    const first = await addPointLocation(fx.app.db, { name: 'Berlin', lat: 52.52, lng: 13.405 });
    // Registered before names of digits only were refused: only the database takes it now.
    const legacy = await fx.app.db
      .insertInto('location')
      .values({
        name: String(first.locationId),
        name_key: String(first.locationId),
        lat: 48.1351,
        lng: 11.582,
        timezone: 'Europe/Berlin',
        pollen_region: 'europe',
        registered_by: 'coordinates',
      })
      .returning('location_id')
      .executeTakeFirstOrThrow();
    const n = String(first.locationId);

    const ambiguous = await refused(
      ['locations', 'remove', n],
      /ambiguous location\(s\), nothing was done/,
    );
    expect(ambiguous.stderr).toContain(
      `"${n}" is the id of location ${n} "Berlin" and the name of location ${legacy.location_id}: say id:${n} or name:${n}`,
    );
    await refused(
      [
        'backfill',
        ...['--dataset', 'weather', '--from', '2024-01-01', '--to', '2024-01-03'],
        '--location',
        n,
        '--dry-run',
      ],
      /ambiguous location/,
    );

    const byName = await envdata(['locations', 'remove', `name:${n}`]);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stdout).toContain(`retired location ${legacy.location_id} ${n}:`);
    const byId = await envdata(['locations', 'remove', `id:${n}`]);
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(`retired location ${n} Berlin:`);
    expect((await rows()).every((r) => r.retired_at !== null)).toBe(true);
  });

  it('ids beyond any location are a clear usage error, never a database error', async () => {
    await refused(
      ['locations', 'remove', 'id:99999999999'],
      /"id:99999999999" is not a location id: id:N takes a whole number from 1 to 2147483647/,
    );
    await refused(
      ['locations', 'remove', '99999999999999999999'],
      /unknown location\(s\): "99999999999999999999"/,
    );
    await refused(['locations', 'restore', 'name:'], /"name:" names no location/);
  });

  it('--help explains the rule', async () => {
    const help = await runEnvdata(['locations', 'remove', '--help']);
    expect(help.stdout).toMatch(/`id:12` and `name:12` say which/);
  });
});

describe('countries are ISO codes of the country the point is in', () => {
  it('--country us on a point in Prague exits 2 naming the country the point is in', async () => {
    await refused(
      addPoint(PRAGUE.lat, PRAGUE.lng, 'Prague', 'us'),
      /--country US: the point 50\.0755, 14\.4378 is in Czechia \(CZ\), not United States \(US\) .*: check the coordinates \(latitude first\), give country CZ, or leave the country out/,
    );
  });

  it('--country ZZ exits 2: no country has that code', async () => {
    await refused(
      addPoint(PRAGUE.lat, PRAGUE.lng, 'Prague', 'ZZ'),
      /--country must be an ISO 3166-1 alpha-2 country code such as DE, US or AU; "ZZ" is no country's code/,
    );
    await refused(
      ['locations', 'add', '--place', 'Berlin', '--country', 'zz'],
      /"zz" is no country's code/,
    );
  });

  it('a country code in any case is stored upper case, and the region follows the point', async () => {
    const result = await envdata(addPoint(PRAGUE.lat, PRAGUE.lng, 'Prague', 'cz'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(await rows()).toMatchObject([
      { name: 'Prague', country_code: 'CZ', pollen_region: 'europe' },
    ]);
  });

  it('warns instead of refusing where it cannot tell: open sea, a border a few km away', async () => {
    const sea = await envdata(addPoint('0', '-140', 'Buoy', 'US'));
    expect(sea.code, sea.stderr).toBe(0);
    expect(sea.stderr).toMatch(
      /envdata: warning: --country US: no populated place lies within 150 km of 0, -140 .*recorded as given/,
    );
    const border = await envdata(addPoint('48.5734', '7.7521', 'Strasbourg Centre', 'DE'));
    expect(border.code, border.stderr).toBe(0);
    expect(border.stderr).toMatch(
      /lies near the border of France \(FR\) and Germany \(DE\) .*Kehl.*recorded DE as given/,
    );
    expect((await rows()).map((r) => [r.name, r.country_code, r.pollen_region])).toEqual([
      ['Buoy', 'US', 'rest_of_world'],
      ['Strasbourg Centre', 'DE', 'europe'],
    ]);
  });

  it('an import row whose country does not contain its point exits 2; a border row warns', async () => {
    const bad = await dir.write(
      'prague.csv',
      `name,lat,lng,country\nPrague,${PRAGUE.lat},${PRAGUE.lng},US\nNowhere,1,1,ZZ\n`,
    );
    const result = await refused(['locations', 'import', bad], /2 problem\(s\) in the file/);
    expect(result.stderr).toMatch(
      /line 2: country the point 50\.0755, 14\.4378 is in Czechia \(CZ\), not United States \(US\)/,
    );
    expect(result.stderr).toMatch(/line 3: country must be an ISO 3166-1 alpha-2 country code/);

    const border = await dir.write(
      'border.csv',
      'name,lat,lng,country\nStrasbourg Centre,48.5734,7.7521,de\n',
    );
    const ok = await envdata(['locations', 'import', border]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(
      /warning: .*border\.csv: line 2: country .*near the border of France \(FR\) and Germany \(DE\)/,
    );
    expect(await rows()).toMatchObject([{ name: 'Strasbourg Centre', country_code: 'DE' }]);
  });

  it('the pollen region never follows a given country', async () => {
    const prague = await addPointLocation(fx.app.db, { ...PRAGUE, countryCode: 'US' });
    expect(prague.pollenRegion).toBe('europe');
  });
});
