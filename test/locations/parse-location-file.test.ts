import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/locations/parse-csv.js';
import { locationFileFormat, parseLocationFile } from '../../src/locations/parse-location-file.js';

describe('parseCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, and keeps start lines', () => {
    const csv = parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\r\n\r\n"two\nlines",z\n');
    expect(csv.problems).toEqual([]);
    expect(csv.records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x, y', 'say "hi"'] },
      { line: 4, fields: ['two\nlines', 'z'] },
    ]);
  });

  it('reports a quote that is never closed with the line it opened on', () => {
    expect(parseCsv('a,b\n1,"open\n2,3\n').problems).toEqual([
      'line 2: the quoted field opened here is never closed',
    ]);
  });
});

describe('parseLocationFile (CSV)', () => {
  it('reads points and places from one file, skipping empty cells', () => {
    const file = parseLocationFile(
      'name,lat,lng,country,place\nMunich,48.1351,11.582,de,\n,,,,Berlin\nHome,,,ES,Valencia\n',
      'csv',
    );
    expect(file.problems).toEqual([]);
    expect(file.entries).toEqual([
      { kind: 'point', ref: 'line 2', name: 'Munich', lat: 48.1351, lng: 11.582, country: 'DE' },
      { kind: 'place', ref: 'line 3', place: 'Berlin', name: undefined, country: undefined },
      { kind: 'place', ref: 'line 4', place: 'Valencia', name: 'Home', country: 'ES' },
    ]);
  });

  it('reports every bad row with its line, not just the first', () => {
    const file = parseLocationFile(
      [
        'name,lat,lng,country',
        'Ok,1,2,',
        'TooFar,95,0,',
        ',10,10,',
        'Hex,0x10,0,',
        'Short,1',
        'Country,1,1,Germany',
      ].join('\n'),
      'csv',
    );
    expect(file.entries.map((e) => e.ref)).toEqual(['line 2']);
    expect(file.problems).toEqual([
      'line 3: lat must be a number in [-90, 90] (got "95")',
      'line 4: name must not be empty (or give a place instead)',
      'line 5: lat must be a plain decimal number such as 52.52 (got "0x10"): digits with an optional "-" and decimal point, no spaces, "+", exponent or hex',
      'line 6: 2 field(s), the header has 4 (name,lat,lng,country)',
      'line 7: country must be a two-letter code such as DE (got "Germany")',
    ]);
  });

  it('takes coordinates only as plain decimals: no spaces, "+", exponent or hex', () => {
    const file = parseLocationFile(
      [
        'name,lat,lng',
        'Plain,-52.5,13',
        'Spaced, 52.5,13',
        'Exponent,1e1,13',
        'Plus,+5,13',
        'Bare fraction,.5,13',
        'Hex,0x10,13',
        'Trailing,52.5 ,13',
      ].join('\n'),
      'csv',
    );
    expect(file.entries).toEqual([
      { kind: 'point', ref: 'line 2', name: 'Plain', lat: -52.5, lng: 13, country: undefined },
    ]);
    expect(file.problems.map((p) => /^(line \d+): lat .*\(got "(.*)"\)/.exec(p)?.slice(1))).toEqual(
      [
        ['line 3', ' 52.5'],
        ['line 4', '1e1'],
        ['line 5', '+5'],
        ['line 6', '.5'],
        ['line 7', '0x10'],
        ['line 8', '52.5 '],
      ],
    );
  });

  it('refuses unknown country codes, unsafe characters in names and places, and all-digit names', () => {
    const file = parseLocationFile(
      [
        'name,lat,lng,country,place',
        'Nowhere,1,1,ZZ,',
        '"Bonn\u202Eyrreb",50.7,7.1,,',
        '"Line\nbreak",1,2,,',
        '2,1,3,,',
        'id:7,1,4,,',
        ',,,,"Ber\u2066lin"',
      ].join('\n'),
      'csv',
    );
    expect(file.entries).toEqual([]);
    expect(file.problems).toEqual([
      'line 2: country must be an ISO 3166-1 alpha-2 country code such as DE, US or AU; "ZZ" is no country\'s code',
      'line 3: name contains U+202E (right-to-left override) at character 5: type it again without control or bidirectional formatting characters',
      'line 4: name contains U+000A (line feed) at character 5: type it again without control or bidirectional formatting characters',
      'line 6: name "2" is only digits, which read as a location id (`envdata locations remove 2` means id 2): add a letter, such as "Site 2"',
      'line 7: name "id:7" starts with "id:" or "name:", which envdata reads as a location reference: choose another name',
      'line 8: place contains U+2066 (left-to-right isolate) at character 4: type it again without control or bidirectional formatting characters',
    ]);
  });

  it('refuses a header with unknown columns or without name,lat,lng or place', () => {
    expect(parseLocationFile('name,latitude,longitude\nA,1,2\n', 'csv').problems).toEqual([
      'line 1: unknown column(s) "latitude", "longitude"; the header names some of name,lat,lng,country,place',
      'line 1: the header needs name,lat,lng or place (got name,latitude,longitude)',
    ]);
    expect(parseLocationFile('', 'csv').problems).toEqual([
      'the file is empty: expected a header row',
    ]);
  });

  it('refuses a row giving both a place and coordinates', () => {
    expect(parseLocationFile('place,lat,lng\nBerlin,52.5,13.4\n', 'csv').problems).toEqual([
      'line 2: give either place or lat,lng, not both',
    ]);
  });
});

describe('parseLocationFile (JSON)', () => {
  it('reads an array of objects, numbers or numeric strings, and reports by index', () => {
    const file = parseLocationFile(
      JSON.stringify([
        { name: 'Berlin', lat: 52.52, lng: '13.405' },
        { place: 'Valencia', country: 'es' },
        { name: 'Nowhere', lat: 12 },
        { name: 'Bad', lat: true, lng: 1 },
        'Paris',
        { name: 'Extra', lat: 1, lng: 1, population: 3 },
      ]),
      'json',
    );
    expect(file.entries).toEqual([
      {
        kind: 'point',
        ref: 'index 0',
        name: 'Berlin',
        lat: 52.52,
        lng: 13.405,
        country: undefined,
      },
      { kind: 'place', ref: 'index 1', place: 'Valencia', name: undefined, country: 'ES' },
    ]);
    expect(file.problems).toEqual([
      'index 2: lng is missing',
      'index 3: lat must be a number',
      'index 4: not an object',
      'index 5: unknown key(s) population; use name, lat, lng, country, place',
    ]);
  });

  it('takes JSON numbers as they are, but strings only as plain decimals', () => {
    const file = parseLocationFile(
      JSON.stringify([
        { name: 'Tiny', lat: 1e-7, lng: -0.5 },
        { name: 'Text', lat: '48.1351', lng: '11.582' },
        { name: 'Hex', lat: '0x10', lng: '1' },
        { name: 'Spaced', lat: ' 52.5', lng: '1' },
        { name: 'Exponent', lat: 1, lng: '1e1' },
      ]),
      'json',
    );
    expect(file.entries.map((e) => e.kind === 'point' && [e.name, e.lat, e.lng])).toEqual([
      ['Tiny', 1e-7, -0.5],
      ['Text', 48.1351, 11.582],
    ]);
    expect(file.problems.map((p) => p.slice(0, p.indexOf(' (got')))).toEqual([
      'index 2: lat must be a plain decimal number such as 52.52',
      'index 3: lat must be a plain decimal number such as 52.52',
      'index 4: lng must be a plain decimal number such as -0.1278',
    ]);
  });

  it('says when the text is not JSON or not an array', () => {
    expect(parseLocationFile('[{', 'json').problems[0]).toMatch(/^the file is not valid JSON/);
    expect(parseLocationFile('{"name":"x"}', 'json').problems).toEqual([
      'the JSON file must hold an array of objects',
    ]);
  });
});

describe('locationFileFormat', () => {
  it('follows the extension, else the first character', () => {
    expect(locationFileFormat('a.JSON', 'name,lat')).toBe('json');
    expect(locationFileFormat('a.csv', '[')).toBe('csv');
    expect(locationFileFormat('-', '  [{}]')).toBe('json');
    expect(locationFileFormat('list.txt', 'name,lat,lng')).toBe('csv');
  });
});
