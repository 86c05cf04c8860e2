import { describe, expect, it } from 'vitest';
import { parseGeocodeBody } from '../../src/service/parse-geocode-body.js';
import { readFixture } from './read-fixture.js';

describe('parseGeocodeBody', () => {
  it('reads the matches of /geocode/by-place, best first', () => {
    const payload = parseGeocodeBody(readFixture('geocode.json'));
    expect(payload.rejected).toEqual([]);
    expect(payload.records).toEqual([
      {
        lat: 52.52,
        lng: 13.405,
        label: 'Berlin, Germany',
        countryCode: 'DE',
        countryName: 'Germany',
        state: 'Berlin',
        city: 'Berlin',
        postalCode: '10117',
      },
      {
        lat: 44,
        lng: -71.5,
        label: 'Berlin, NH, United States',
        countryCode: 'US',
        countryName: 'United States',
        state: 'New Hampshire',
        city: 'Berlin',
        postalCode: undefined,
      },
    ]);
  });

  it('reads reverse geocoding with string coordinates and without address; rejects unreadable ones', () => {
    const payload = parseGeocodeBody(readFixture('reverse-geocode.json'));
    expect(payload.records.map((m) => [m.lat, m.lng, m.postalCode])).toEqual([
      [41.3874, 2.1686, '08002'],
      [41.39, 2.17, undefined],
      [41.39, 2.17, '8002'],
    ]);
    expect(payload.records[1]?.label).toBeUndefined();
    expect(payload.rejected).toEqual([
      {
        index: 2,
        raw: { lat: 'north', lng: '2.17', address: { label: '?' } },
        reason: 'lat is not a number: "north"',
      },
    ]);
  });

  it('rejects a match outside the coordinate ranges', () => {
    const payload = parseGeocodeBody('{"message":"success","data":[{"lat":91,"lng":0}]}');
    expect(payload.records).toEqual([]);
    expect(payload.rejected[0]?.reason).toBe('lat is outside [-90, 90]: 91');
  });
});
