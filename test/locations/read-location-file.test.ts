import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { CsvSplitter, parseCsv } from '../../src/locations/parse-csv.js';
import { parseLocationFile } from '../../src/locations/parse-location-file.js';
import { readLocationFile } from '../../src/locations/read-location-file.js';
import { JsonArraySplitter } from '../../src/locations/split-json-array.js';
import { rssGrowth } from '../harness/rss-growth.js';
import { writeCsvFile } from './write-csv-file.js';

const MB = 1024 * 1024;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'envdata-read-locations-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The text in two pieces cut at `at`, as a stream would deliver it. */
async function* twoPieces(text: string, at: number): AsyncIterable<string> {
  yield text.slice(0, at);
  yield text.slice(at);
}

const CSV =
  '\uFEFFname,lat,lng,country,place\r\n"Berlin, Mitte",52.52,13.405,DE,\r\n\r\n' +
  '"Say ""hi""",1,2,,\n,,,ES,Valencia\n"two\nlines",3,4,,\nbad,x,5,,\nlast,6,7,,';
const JSON_TEXT =
  ' [ {"name": "Berlin, \\"Mitte\\" ]}", "lat": 52.52, "lng": 13.405},' +
  '{"place":"Valencia","country":"ES"} , {"name":"[x]","lat":"1","lng":2}, 7 ]\n';

describe('reading a location file in pieces', () => {
  it('splits CSV into the same records wherever the pieces are cut', () => {
    const whole = parseCsv(CSV);
    for (let at = 0; at <= CSV.length; at += 1) {
      const splitter = new CsvSplitter();
      const records = [
        ...splitter.push(CSV.slice(0, at)),
        ...splitter.push(CSV.slice(at)),
        ...splitter.end(),
      ];
      expect({ records, problems: splitter.problems }, `cut at ${at}`).toEqual(whole);
    }
  });

  it('splits a JSON array into the same elements wherever the pieces are cut', () => {
    const expected = (JSON.parse(JSON_TEXT) as unknown[]).map((e) => JSON.stringify(e));
    for (let at = 0; at <= JSON_TEXT.length; at += 1) {
      const splitter = new JsonArraySplitter();
      const elements = [
        ...splitter.push(JSON_TEXT.slice(0, at)),
        ...splitter.push(JSON_TEXT.slice(at)),
      ];
      splitter.end();
      expect(splitter.problem, `cut at ${at}`).toBeUndefined();
      expect(elements.map((e) => JSON.stringify(JSON.parse(e.text)))).toEqual(expected);
      expect(elements.map((e) => e.index)).toEqual([0, 1, 2, 3]);
    }
  });

  it('gives the entries and problems of parseLocationFile, for CSV and JSON', async () => {
    for (const [text, name] of [
      [CSV, 'f.csv'],
      [JSON_TEXT, 'f.json'],
      ['[{"name":"x","lat":1,"lng":2},', 'open.json'],
      ['{"name":"x"}', 'object.json'],
      ['[1,]', 'comma.json'],
    ] as const) {
      const whole = parseLocationFile(text, name.endsWith('.json') ? 'json' : 'csv');
      for (const at of [0, 1, 7, Math.floor(text.length / 2), text.length - 1]) {
        expect(await readLocationFile(twoPieces(text, at), name, { maxRows: 100 })).toEqual(whole);
      }
    }
  });

  it('refuses one row more than ENVDATA_IMPORT_MAX_ROWS, whatever the format', async () => {
    const csv = 'name,lat,lng\na,1,1\nb,2,2\nc,3,3\n';
    expect(
      (await readLocationFile(twoPieces(csv, 5), 'f.csv', { maxRows: 3 })).entries,
    ).toHaveLength(3);
    const error: unknown = await readLocationFile(twoPieces(`${csv}d,4,4\n`, 5), 'f.csv', {
      maxRows: 3,
    }).catch((e: unknown) => e);
    expect(isEnvdataError(error) && error.code).toBe('VALIDATION_FAILED');
    expect((error as Error).message).toMatch(
      /more than 3 rows\b.*ENVDATA_IMPORT_MAX_ROWS=3.*nothing was written/,
    );
    const json = JSON.stringify([1, 2, 3, 4].map((i) => ({ name: `n${i}`, lat: i, lng: i })));
    await expect(readLocationFile(twoPieces(json, 9), 'f.json', { maxRows: 3 })).rejects.toThrow(
      /more than 3 rows/,
    );
  });

  it('stops at a row far longer than any location (not a location file)', async () => {
    async function* noLineEnd(): AsyncIterable<string> {
      yield 'name,lat,lng\n';
      for (let i = 0; i < 1_000; i += 1) yield 'x'.repeat(64 * 1024);
    }
    const file = await readLocationFile(noLineEnd(), 'f.csv', { maxRows: 100 });
    expect(file.entries).toEqual([]);
    expect(file.problems).toEqual([
      'line 2: a row longer than 4096 characters; this is not a location file (or a quote is never closed)',
    ]);
  });

  it('refuses a 100 MB file at the row limit, in bounded memory, without reading it all', async () => {
    const file = path.join(dir, 'big.csv');
    const rows = await writeCsvFile(file, { bytes: 100 * MB });
    expect(rows).toBeGreaterThan(3_000_000);
    const stream = createReadStream(file, { encoding: 'utf8' });
    const { result: error, growth } = await rssGrowth(() =>
      readLocationFile(stream, file, { maxRows: 100_000 }).catch((e: unknown) => e),
    );
    expect(isEnvdataError(error) && error.code).toBe('VALIDATION_FAILED');
    expect((error as Error).message).toMatch(/more than 100,000 rows/);
    expect(growth).toBeLessThan(100 * MB);
    // Reading stopped at the limit: a few MB of 100.
    expect(stream.bytesRead).toBeLessThan(10 * MB);
  });
});
