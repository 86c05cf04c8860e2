import { describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { importLocations } from '../../src/locations/import-locations.js';
import { insertLocation } from '../../src/locations/insert-location.js';
import { parseLocationFile } from '../../src/locations/parse-location-file.js';
import { PLACES, mixedCsv } from './location-files.js';
import { useLocationsFixture } from './locations-fixture.js';

const fx = useLocationsFixture();

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    if (isEnvdataError(error) && error.code === 'VALIDATION_FAILED') {
      return error.details.problems as string[];
    }
    throw error;
  }
  throw new Error('expected VALIDATION_FAILED');
}

const count = async () =>
  (await fx.app.db.selectFrom('location').select('location_id').execute()).length;

describe('importLocations', () => {
  it('registers points and geocoded places of a 50-row file in file order, one call per place', async () => {
    const file = parseLocationFile(mixedCsv(40), 'csv');
    const outcome = await importLocations(fx.app.db, file, fx.client);
    expect(outcome.locations).toHaveLength(50);
    expect(outcome.geocodeCalls).toBe(PLACES.length);
    expect(fx.geocodeCalls()).toBe(PLACES.length);
    expect(outcome.locations.slice(0, 4).map((l) => l.name)).toEqual([
      'Grid 1',
      'Berlin',
      'Grid 2',
      'Paris',
    ]);
    expect(outcome.locations[1]).toMatchObject({
      countryCode: 'DE',
      timezone: 'Europe/Berlin',
      place: 'Berlin, Germany',
      registeredBy: 'import',
    });
    expect(await count()).toBe(50);
  });

  it('geocodes a place repeated in the file once, then reports the duplicate rows', async () => {
    const file = parseLocationFile('place\nOslo\nOslo\n', 'csv');
    const problems = await problemsOf(importLocations(fx.app.db, file, fx.client));
    expect(fx.geocodeCalls()).toBe(1);
    expect(problems).toEqual([
      'line 3 (place "Oslo" → Oslo, Norway): the name "Oslo" is also on line 2',
      expect.stringMatching(
        /^line 3 \(place "Oslo" → Oslo, Norway\): the point .* is also on line 2 \("Oslo"\)$/,
      ),
    ]);
  });

  it('writes nothing when one row is bad, naming the row, and spends no calls on such a file', async () => {
    // Line 1 is the header; 10 place rows precede "Grid 30", which is on line 41.
    const csv = mixedCsv(40).replace(/^Grid 30,[^,]*,/m, 'Grid 30,123,');
    const file = parseLocationFile(csv, 'csv');
    const problems = await problemsOf(importLocations(fx.app.db, file, fx.client));
    expect(problems).toEqual(['line 41: lat must be a number in [-90, 90] (got "123")']);
    expect(fx.geocodeCalls()).toBe(0);
    expect(await count()).toBe(0);
  });

  it('reports every unusable place and every clash with the warehouse, all at once', async () => {
    await insertLocation(fx.app.db, {
      name: 'Taken',
      lat: 10,
      lng: 10,
      registeredBy: 'coordinates',
    });
    const file = parseLocationFile(
      JSON.stringify([
        { name: 'Fine', lat: 1, lng: 1 },
        { place: 'Valencia' },
        { place: 'Xyzzyville' },
        { name: 'taken', lat: 2, lng: 2 },
        { name: 'Elsewhere', lat: 10.00001, lng: 10 },
        { place: 'Valencia', country: 'ES', name: 'Valencia ES' },
      ]),
      'json',
    );
    const problems = await problemsOf(importLocations(fx.app.db, file, fx.client));
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(
      /^index 1: "Valencia" is ambiguous: .*a country column \(VE or ES\)/,
    );
    expect(problems[1]).toMatch(/^index 2: no place matches "Xyzzyville"/);
    expect(problems[2]).toMatch(
      /^index 3: the name "taken" is already registered \(location \d+ at 10, 10\)/,
    );
    expect(problems[3]).toMatch(
      /^index 4: the point 10, 10 is already registered \(location \d+ "Taken"\)/,
    );
    expect(await count()).toBe(1);
  });

  it('aborts on a service failure with its code, writing nothing', async () => {
    fx.simulator.addFaultScripts('geocode-by-place:error=401x1');
    const file = parseLocationFile('name,lat,lng,place\nA,1,1,\n,,,Berlin\n', 'csv');
    const error = await importLocations(fx.app.db, file, fx.client).catch((e: unknown) => e);
    expect(isEnvdataError(error) && error.code).toBe('UNAUTHORIZED');
    expect((error as Error).message).toMatch(/^could not geocode "Berlin": /);
    expect(await count()).toBe(0);
  });

  it('needs no client for a file of points, and a client for one with places', async () => {
    const points = parseLocationFile('name,lat,lng\nA,1,1\nB,2,2\n', 'csv');
    expect((await importLocations(fx.app.db, points, undefined)).locations).toHaveLength(2);
    const places = parseLocationFile('place\nBerlin\n', 'csv');
    const error = await importLocations(fx.app.db, places, undefined).catch((e: unknown) => e);
    expect(isEnvdataError(error) && error.code).toBe('USAGE');
  });
});
