import { describe, expect, it } from 'vitest';
import { locationAliasOf } from '../../src/locations/location-alias-of.js';
import { locationNameKey } from '../../src/locations/location-name-key.js';
import { locationTextProblem } from '../../src/locations/location-text-problem.js';

describe('locationNameKey', () => {
  it.each([
    ['Ber\u200Blin', 'Berlin'],
    ['Zu\u0308rich', 'Z\u00fcrich'],
    ['BERLIN', 'berlin'],
    ['Stra\u00dfe', 'STRASSE'],
    ['Bad\u00a0 Homburg', 'Bad Homburg'],
    ['\uFEFFOslo\u2060', 'Oslo'],
    ['Cafe\u0301', 'Caf\u00e9'],
    ['\u039F\u0394\u039F\u03A3', '\u03BF\u03B4\u03BF\u03C2'],
  ])('reads %j as %j', (a, b) => {
    expect(locationNameKey(a)).toBe(locationNameKey(b));
  });

  it.each([
    ['Berlin', 'Berlín'],
    ['Zürich', 'Zurich'],
    ['Bad Homburg', 'BadHomburg'],
  ])('keeps %j and %j apart', (a, b) => {
    expect(locationNameKey(a)).not.toBe(locationNameKey(b));
  });
});

describe('names as they read', () => {
  it('refuses a name of invisible characters only, or digits behind one', () => {
    expect(locationTextProblem('name', '\u200B\u200D')?.problem).toBe(
      'has only invisible characters',
    );
    expect(locationTextProblem('name', '1\u200B2')?.problem).toMatch(/only digits/);
    expect(locationTextProblem('name', 'id\u200B:3')?.problem).toMatch(/starts with "id:"/);
  });

  it('keeps a place text as an alias only when it reads otherwise than the name', () => {
    expect(locationAliasOf('Zürich', ' Zurich ')).toBe('Zurich');
    expect(locationAliasOf('Berlin', 'berlin')).toBeUndefined();
    expect(locationAliasOf('Berlin', 'Ber\u200Blin')).toBeUndefined();
    expect(locationAliasOf('Site', '12345')).toBeUndefined();
    expect(locationAliasOf('Zürich', 'Zu\u0308rich, CH')).toBe('Z\u00fcrich, CH');
  });
});
