import { describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { addLocationByPlace, addLocationByPoint } from '../../src/locations/add-location.js';
import { locatePlace } from '../../src/locations/locate-place.js';
import { useLocationsFixture } from './locations-fixture.js';

const fx = useLocationsFixture();

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isEnvdataError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('locatePlace', () => {
  it('takes the best match when namesakes elsewhere are much smaller (Berlin)', async () => {
    const choice = await locatePlace(fx.client, 'Berlin');
    expect(choice.kind).toBe('match');
    expect(choice.kind === 'match' && choice.match.countryCode).toBe('DE');
  });

  it('calls namesakes of similar size ambiguous (Valencia: Venezuela and Spain)', async () => {
    const choice = await locatePlace(fx.client, 'Valencia');
    expect(choice.kind).toBe('ambiguous');
    expect(choice.kind === 'ambiguous' && choice.candidates.map((c) => c.countryCode)).toEqual([
      'VE',
      'ES',
    ]);
  });

  it('lets a country pick among namesakes, and reports none when it has none', async () => {
    const spain = await locatePlace(fx.client, 'Valencia', 'ES');
    expect(spain.kind === 'match' && spain.match.label).toBe('Valencia, Spain');
    const japan = await locatePlace(fx.client, 'Valencia', 'JP');
    expect(japan.kind).toBe('none');
    expect(japan.kind === 'none' && japan.elsewhere.length).toBeGreaterThan(1);
  });

  it('needs a more specific place when the namesakes share a country (Springfield)', async () => {
    expect((await locatePlace(fx.client, 'Springfield', 'US')).kind).toBe('ambiguous');
    const illinois = await locatePlace(fx.client, 'Springfield, Illinois');
    expect(illinois.kind === 'match' && illinois.match.state).toBe('Illinois');
  });

  it('takes a native name for the city (München is Munich), and a longer name for its own', async () => {
    const munich = await locatePlace(fx.client, 'München');
    expect(munich.kind === 'match' && munich.match).toMatchObject({
      city: 'Munich',
      countryCode: 'DE',
    });
    const muenchenstein = await locatePlace(fx.client, 'Münchenstein');
    expect(muenchenstein.kind === 'match' && muenchenstein.match).toMatchObject({
      city: 'Münchenstein',
      countryCode: 'CH',
    });
  });

  it('turns "Data not available" into no match', async () => {
    expect(await locatePlace(fx.client, 'Xyzzyville')).toEqual({ kind: 'none', elsewhere: [] });
  });
});

describe('addLocationByPlace', () => {
  it('stores the best match with its label as place, zone and region, in one call', async () => {
    const berlin = await addLocationByPlace(fx.app.db, fx.client, {
      place: 'Berlin',
      ingestByPlace: true,
    });
    expect(berlin).toMatchObject({
      name: 'Berlin',
      countryCode: 'DE',
      timezone: 'Europe/Berlin',
      pollenRegion: 'europe',
      place: 'Berlin, Germany',
      registeredBy: 'place',
      ingestByPlace: true,
      retiredAt: null,
    });
    expect(berlin.lat).toBeCloseTo(52.52, 1);
    expect(fx.geocodeCalls()).toBe(1);
  });

  it('refuses an ambiguous place listing the candidates and writes nothing', async () => {
    const error = await rejection(addLocationByPlace(fx.app.db, fx.client, { place: 'Valencia' }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toMatch(
      /"Valencia" is ambiguous: Valencia, .*\[VE\].*Valencia, Spain \[ES\]/,
    );
    expect(error.message).toContain('--country VE|ES');
    expect(await fx.app.db.selectFrom('location').selectAll().execute()).toEqual([]);
  });

  it('refuses a place with no match as NOT_FOUND', async () => {
    const error = await rejection(
      addLocationByPlace(fx.app.db, fx.client, { place: 'Xyzzyville' }),
    );
    expect(error).toMatchObject({ code: 'NOT_FOUND' });
    expect(error.message).toMatch(/no place matches "Xyzzyville"/);
  });

  it('refuses a duplicate naming the location that holds the name, even when retired', async () => {
    const first = await addLocationByPlace(fx.app.db, fx.client, { place: 'London' });
    await fx.app.db.updateTable('location').set({ retired_at: new Date() }).execute();
    const error = await rejection(
      addLocationByPlace(fx.app.db, fx.client, { place: 'London', country: 'CA' }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(
      `the name "London" is already registered (location ${first.locationId}`,
    );
    expect(error.message).toContain(`envdata locations restore ${first.locationId}`);
    const ontario = await addLocationByPlace(fx.app.db, fx.client, {
      place: 'London',
      country: 'CA',
      name: 'London ON',
    });
    expect(ontario).toMatchObject({
      countryCode: 'CA',
      timezone: 'America/Toronto',
      pollenRegion: 'north_america',
      place: 'London, Ontario, Canada',
    });
  });
});

describe('addLocationByPoint', () => {
  it('names a point by reverse geocoding through the service', async () => {
    // The gazetteer's nearest place centroid here is Eixample; the service says Barcelona.
    const location = await addLocationByPoint(fx.app.db, fx.client, { lat: 41.3874, lng: 2.1686 });
    expect(location).toMatchObject({
      name: 'Barcelona',
      countryCode: 'ES',
      timezone: 'Europe/Madrid',
      registeredBy: 'coordinates',
      place: null,
    });
    expect(fx.reverseGeocodeCalls()).toBe(1);
  });

  it('asks for a name where the service knows no place, and writes nothing', async () => {
    const error = await rejection(addLocationByPoint(fx.app.db, fx.client, { lat: 0, lng: -30 }));
    expect(error.code).toBe('USAGE');
    expect(error.message).toMatch(/knows no named place near 0, -30: give it a --name/);
    expect(await fx.app.db.selectFrom('location').selectAll().execute()).toEqual([]);
  });

  it('makes no call when a name is given, and names from the gazetteer without a client', async () => {
    const named = await addLocationByPoint(fx.app.db, fx.client, {
      lat: 48.1351,
      lng: 11.582,
      name: 'Home',
    });
    expect(named).toMatchObject({ name: 'Home', countryCode: 'DE' });
    const offline = await addLocationByPoint(fx.app.db, undefined, { lat: 41.3874, lng: 2.1686 });
    expect(offline.name).toBe('Eixample');
    expect(fx.reverseGeocodeCalls()).toBe(0);
  });

  it('keeps the service failure code and names the point', async () => {
    fx.simulator.addFaultScripts('geocode-reverse:error=429x1');
    const error = await rejection(addLocationByPoint(fx.app.db, fx.client, { lat: 1, lng: 1 }));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toMatch(/^could not reverse geocode 1, 1: /);
  });
});
