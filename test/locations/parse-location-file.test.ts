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
      'line 5: lat must be a number in [-90, 90] (got "0x10")',
      'line 6: 2 field(s), the header has 4 (name,lat,lng,country)',
      'line 7: country must be a two-letter code such as DE (got "Germany")',
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
