import { describe, expect, it } from 'vitest';
import { countryNameOf } from '../../src/geo/country-name-of.js';
import { countryOfPoint } from '../../src/geo/country-of-point.js';
import { geocodePlace } from '../../src/geo/geocode-place.js';
import { isCountryCode } from '../../src/geo/is-country-code.js';
import { nearestPlace } from '../../src/geo/nearest-place.js';
import { pollenRegionOf } from '../../src/geo/pollen-region-of.js';
import { reverseGeocode } from '../../src/geo/reverse-geocode.js';
import { timezoneOf } from '../../src/geo/timezone-of.js';
import { ALTERNATE_PLACE_NAMES } from '../../src/geo/alternate-place-names.js';
import { PLACES } from './simulator-http.js';

describe('geocodePlace', () => {
  it('returns Berlin, Germany first for "Berlin", with its state and country', () => {
    const [first, ...rest] = geocodePlace('Berlin');
    expect(first).toMatchObject({ name: 'Berlin', countryCode: 'DE', countryName: 'Germany' });
    expect(first?.state).toContain('Berlin');
    expect(first?.lat).toBeCloseTo(52.52, 1);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((p) => p.population <= (first?.population ?? 0))).toBe(true);
  });

  it('narrows by a country or state after a comma, or trailing words', () => {
    expect(geocodePlace('Paris, US').every((p) => p.countryCode === 'US')).toBe(true);
    expect(geocodePlace('Springfield, Illinois')[0]).toMatchObject({
      countryCode: 'US',
      state: 'Illinois',
    });
    expect(geocodePlace('Berlin Germany')[0]?.countryCode).toBe('DE');
  });

  it('ignores case and diacritics and falls back to prefixes', () => {
    expect(geocodePlace('sao paulo')[0]).toMatchObject({ name: 'São Paulo', countryCode: 'BR' });
    expect(geocodePlace('New York')[0]).toMatchObject({ name: 'New York City', countryCode: 'US' });
  });

  it('matches the other names of major cities, before names that merely start with them', () => {
    expect(geocodePlace('München')[0]).toMatchObject({ name: 'Munich', countryCode: 'DE' });
    expect(geocodePlace('Münchenstein')[0]).toMatchObject({
      name: 'Münchenstein',
      countryCode: 'CH',
    });
    expect(geocodePlace('München, Germany')[0]?.name).toBe('Munich');
    expect(geocodePlace('Москва')[0]).toMatchObject({ name: 'Moscow', countryCode: 'RU' });
    expect(geocodePlace('Cologne')[0]).toMatchObject({ name: 'Köln', countryCode: 'DE' });
  });

  it('ranks exact matches by population, an other name among them: "Roma" is Rome first', () => {
    const roma = geocodePlace('Roma');
    expect(roma[0]).toMatchObject({ name: 'Rome', countryCode: 'IT' });
    expect(roma.slice(1).every((p) => p.name === 'Roma')).toBe(true);
    expect(geocodePlace('Roma, AU')[0]).toMatchObject({ name: 'Roma', countryCode: 'AU' });
  });

  it('finds the city of every row of ALTERNATE_PLACE_NAMES first, under each of its names', () => {
    for (const [name, countryCode, alternates] of ALTERNATE_PLACE_NAMES) {
      for (const alternate of alternates) {
        expect(geocodePlace(alternate, { limit: 1 })[0], alternate).toMatchObject({
          name,
          countryCode,
        });
      }
    }
  });

  it('finds nothing for nonsense and honours the limit', () => {
    expect(geocodePlace('Qxzqxzqxz')).toEqual([]);
    expect(geocodePlace('  ,  ')).toEqual([]);
    expect(geocodePlace('Springfield', { limit: 2 })).toHaveLength(2);
  });
});

describe('reverseGeocode', () => {
  it('answers Paris near the centre of Paris, not a closer suburb', () => {
    const [first] = reverseGeocode(48.857, 2.352);
    expect(first).toMatchObject({ name: 'Paris', countryCode: 'FR' });
    expect(first?.distanceKm).toBeLessThan(2);
  });

  it('answers nothing over open sea', () => {
    expect(reverseGeocode(0, -140)).toEqual([]);
    expect(nearestPlace(0, -140)).toBeUndefined();
  });
});

describe('pollenRegionOf', () => {
  it.each([
    ['Berlin', PLACES.berlin, 'europe'],
    ['Moscow (west of the Urals)', { lat: 55.7558, lng: 37.6173 }, 'europe'],
    ['New York', PLACES.newYork, 'north_america'],
    ['Brisbane (Queensland)', PLACES.brisbane, 'australia_qld_nt'],
    ['Darwin (Northern Territory)', PLACES.darwin, 'australia_qld_nt'],
    ['Cairns (Queensland)', { lat: -16.9186, lng: 145.7781 }, 'australia_qld_nt'],
    ['Sydney (New South Wales)', PLACES.sydney, 'australia_nz_rest'],
    ['Perth (Western Australia)', { lat: -31.9523, lng: 115.8613 }, 'australia_nz_rest'],
    ['Auckland', PLACES.auckland, 'australia_nz_rest'],
    ['Nairobi', PLACES.nairobi, 'rest_of_world'],
    ['Tokyo', { lat: 35.6762, lng: 139.6503 }, 'rest_of_world'],
    ['São Paulo', PLACES.saoPaulo, 'south_america_oceania'],
    ['Suva (Fiji)', { lat: -18.1416, lng: 178.4419 }, 'south_america_oceania'],
  ])('puts %s in %s', (_name, { lat, lng }, region) => {
    expect(pollenRegionOf(lat, lng)).toBe(region);
  });

  it('follows the coordinates only: open sea is rest_of_world, Australia splits by state', () => {
    expect(pollenRegionOf(0, 0)).toBe('rest_of_world');
    expect(pollenRegionOf(-20, 135)).toBe('australia_qld_nt');
    expect(pollenRegionOf(-37.8, 144.96)).toBe('australia_nz_rest');
  });
});

describe('countryOfPoint and isCountryCode', () => {
  it('puts a point in the country of its nearest place, with nearby countries at borders', () => {
    const prague = countryOfPoint(50.0755, 14.4378);
    expect(prague.kind === 'known' && prague.nearest.countryCode).toBe('CZ');
    expect(prague.kind === 'known' && prague.alsoNear).toEqual([]);
    const basel = countryOfPoint(47.5596, 7.5886);
    expect(basel.kind === 'known' && basel.nearest.countryCode).toBe('CH');
    expect(basel.kind === 'known' && basel.alsoNear.map((p) => p.countryCode).sort()).toEqual([
      'DE',
      'FR',
    ]);
    expect(countryOfPoint(0, -140)).toEqual({ kind: 'unknown' });
  });

  it('knows ISO 3166-1 alpha-2 codes, upper case only', () => {
    expect(isCountryCode('DE')).toBe(true);
    expect(isCountryCode('XK')).toBe(true);
    expect(isCountryCode('ZZ')).toBe(false);
    expect(isCountryCode('de')).toBe(false);
  });
});

describe('timezoneOf and countryNameOf', () => {
  it('gives IANA zones and English country names', () => {
    expect(timezoneOf(PLACES.berlin.lat, PLACES.berlin.lng)).toBe('Europe/Berlin');
    expect(timezoneOf(PLACES.brisbane.lat, PLACES.brisbane.lng)).toBe('Australia/Brisbane');
    expect(() => timezoneOf(91, 0)).toThrow(RangeError);
    expect(countryNameOf('de')).toBe('Germany');
    expect(countryNameOf('XK')).toBe('Kosovo');
    expect(countryNameOf('XX')).toBe('XX');
  });
});
