/**
 * `npm run bench:locations`: what the hand-written readers of location files earn over
 * maintained libraries (issue 39), on one 100k-row file held in memory and fed in 64 KiB pieces
 * as a file stream delivers it: CSV records by `CsvSplitter` (src/locations/parse-csv.ts) vs
 * `csv-parse`; the elements of a JSON array by `JsonArraySplitter`
 * (src/locations/split-json-array.ts) plus `JSON.parse` vs `@streamparser/json`. Each reader
 * runs `--runs` times, interleaved; the medians are printed with the library's time as a ratio
 * of the hand-written one's, and `parseLocationFile` on the same file for scale (what reading a
 * file costs in all: the splitting and the checks of every value).
 *
 * The rule it settles: a hand-written reader stays only if it is at least 5 % faster. A
 * measurement, not a test: it exits 0 either way.
 *
 * @example npm run bench:locations -- --rows 100000 --runs 7
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { JSONParser } from '@streamparser/json';
import { Parser as CsvParser } from 'csv-parse';
import { CsvSplitter } from '../src/locations/parse-csv.js';
import { parseLocationFile } from '../src/locations/parse-location-file.js';
import { JsonArraySplitter } from '../src/locations/split-json-array.js';

const PIECE = 64 * 1024;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '7' },
  },
  strict: true,
});
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);

/** Point rows as `envdata locations import` takes them; every 10th name quoted with a comma. */
function rows(): { name: string; lat: number; lng: number; country: string }[] {
  return Array.from({ length: ROWS }, (_, i) => ({
    name: i % 10 === 0 ? `Place ${i}, "North"` : `Place ${i}`,
    lat: Number((-80 + ((i * 0.0137) % 160)).toFixed(4)),
    lng: Number((-170 + ((i * 0.0311) % 340)).toFixed(4)),
    country: i % 3 === 0 ? 'DE' : '',
  }));
}

const quoteCsv = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
const data = rows();
const CSV = `name,lat,lng,country\n${data
  .map((r) => [quoteCsv(r.name), r.lat, r.lng, r.country].join(','))
  .join('\n')}\n`;
const JSON_TEXT = `[\n${data.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`;

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += PIECE) out.push(text.slice(at, at + PIECE));
  return out;
}
const CSV_PIECES = pieces(CSV);
const JSON_PIECES = pieces(JSON_TEXT);

/** Each reader returns how many records (elements) it read, checked against the file. */
const READERS: Record<string, () => number> = {
  'csv: CsvSplitter (hand-written)': () => {
    const splitter = new CsvSplitter({ maxRecordChars: 4096 });
    let n = 0;
    for (const piece of CSV_PIECES) n += splitter.push(piece).length;
    return n + splitter.end().length;
  },
  'csv: csv-parse': () => {
    let n = 0;
    let line = 0;
    const parser = new CsvParser({
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      max_record_size: 4096,
      // The line a record ends on (its problems name lines), without \`info\`, which costs 3×.
      on_record: (_record, context) => {
        line = context.lines;
        n += 1;
        return null;
      },
    });
    parser.on('error', (error) => {
      throw error;
    });
    for (const piece of CSV_PIECES) parser.write(piece);
    parser.end();
    if (line < ROWS) throw new Error(`csv-parse ended on line ${line}`);
    return n;
  },
  'json: JsonArraySplitter + JSON.parse (hand-written)': () => {
    const splitter = new JsonArraySplitter({ maxElementChars: 4096 });
    let n = 0;
    for (const piece of JSON_PIECES) {
      for (const element of splitter.push(piece)) if (JSON.parse(element.text) !== null) n += 1;
    }
    splitter.end();
    return n;
  },
  'json: @streamparser/json': () => {
    let n = 0;
    const parser = new JSONParser({ paths: ['$.*'], keepStack: false });
    parser.onValue = () => {
      n += 1;
    };
    for (const piece of JSON_PIECES) parser.write(piece);
    // It ends by itself after the array's "]"; ending it again is an error.
    if (!parser.isEnded) parser.end();
    return n;
  },
  'csv: parseLocationFile, for scale': () => parseLocationFile(CSV, 'csv').entries.length,
};

const EXPECTED: Record<string, number> = Object.fromEntries(
  Object.keys(READERS).map((name) => [name, name.startsWith('json') ? ROWS : ROWS + 1]),
);
EXPECTED['csv: parseLocationFile, for scale'] = ROWS;

const times = new Map<string, number[]>(Object.keys(READERS).map((name) => [name, []]));
for (let run = 0; run <= RUNS; run += 1) {
  for (const [name, read] of Object.entries(READERS)) {
    const started = performance.now();
    const n = read();
    const ms = performance.now() - started;
    if (n !== EXPECTED[name]) throw new Error(`${name} read ${n} records, not ${EXPECTED[name]}`);
    if (run > 0) times.get(name)!.push(ms); // run 0 warms up
  }
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const mb = (text: string) => (Buffer.byteLength(text) / 1024 / 1024).toFixed(1);
console.log(
  `bench:locations — ${ROWS.toLocaleString('en')} rows (CSV ${mb(CSV)} MB, JSON ${mb(JSON_TEXT)} MB), ` +
    `${PIECE / 1024} KiB pieces, median of ${RUNS} runs (Node ${process.version})`,
);
for (const [name, list] of times) {
  const ms = median(list);
  console.log(
    `  ${name.padEnd(52)} ${ms.toFixed(1).padStart(8)} ms  ${Math.round((ROWS / ms) * 1000)
      .toLocaleString('en')
      .padStart(11)} rows/s`,
  );
}
for (const [format, hand, library] of [
  ['csv', 'csv: CsvSplitter (hand-written)', 'csv: csv-parse'],
  ['json', 'json: JsonArraySplitter + JSON.parse (hand-written)', 'json: @streamparser/json'],
] as const) {
  const ratio = median(times.get(library)!) / median(times.get(hand)!);
  const verdict =
    ratio >= 1.05
      ? `the library takes ${ratio.toFixed(2)}× as long: the hand-written reader stays`
      : `the hand-written reader earns under 5 %: use the library`;
  console.log(`  ${format}: ${verdict}`);
}
