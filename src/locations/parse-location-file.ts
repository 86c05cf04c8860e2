import { locationTextMessage } from './location-text-problem.js';
import { parseCoordinate, type CoordinateAxis } from './parse-coordinate.js';
import { parseCountryCode } from './parse-country-code.js';
import { CsvSplitter, type CsvRecord } from './parse-csv.js';
import { JsonArraySplitter, type JsonArrayElement } from './split-json-array.js';

/** The columns (CSV) or keys (JSON) of a location file. */
export const LOCATION_FILE_FIELDS = ['name', 'lat', 'lng', 'country', 'place'] as const;
type Field = (typeof LOCATION_FILE_FIELDS)[number];

/** A row's values, empty ones absent: text as written (coordinates untrimmed), or JSON numbers. */
type RowValues = Partial<Record<Field, string | number>>;

/** One valid row of a location file: a point with its name, or a place to geocode. */
export type LocationEntry =
  | {
      readonly kind: 'point';
      /** Where it is in the file, for messages: `line 7` (CSV) or `index 6` (JSON). */
      readonly ref: string;
      readonly name: string;
      readonly lat: number;
      readonly lng: number;
      readonly country: string | undefined;
    }
  | {
      readonly kind: 'place';
      readonly ref: string;
      readonly place: string;
      /** Overrides the name the service gives the place. */
      readonly name: string | undefined;
      readonly country: string | undefined;
    };

export interface ParsedLocationFile {
  readonly entries: readonly LocationEntry[];
  /** Every row that is not valid, each starting with where it is: `line 7: lat must be …`. */
  readonly problems: readonly string[];
}

/**
 * Reads a location file: CSV with a header row, or a JSON array of objects, with the fields
 * `name`, `lat`, `lng`, `country` (optional, an ISO 3166-1 alpha-2 code) and `place`.
 * A row is either a point (`name`, `lat`, `lng`) or a place (`place`, optionally `name` to
 * override the geocoded name); `country` narrows a place's matches, or sets a point's country.
 * Coordinates are JSON numbers or plain decimals (`parseCoordinate`); names and places are
 * checked by `locationTextProblem` (no control or bidirectional characters, no all-digit names).
 * Every invalid row is reported, not only the first. (A file read as a stream goes through
 * `readLocationFile`.)
 *
 * @example
 * parseLocationFile('name,lat,lng\nBerlin,52.52,13.405\n', 'csv').entries[0]
 * // { kind: 'point', ref: 'line 2', name: 'Berlin', lat: 52.52, lng: 13.405, country: undefined }
 */
export function parseLocationFile(text: string, format: 'csv' | 'json'): ParsedLocationFile {
  const parser = new LocationFileParser(format);
  parser.push(text);
  return parser.end();
}

/** `json` when the file name ends in `.json` or the text starts with `[`, else `csv`. */
export function locationFileFormat(fileName: string, text: string): 'csv' | 'json' {
  if (/\.json$/i.test(fileName)) return 'json';
  if (/\.csv$/i.test(fileName)) return 'csv';
  return text.trimStart().startsWith('[') ? 'json' : 'csv';
}

/** How a location file is read. */
export interface LocationFileLimits {
  /** Longest row (CSV) or object (JSON) read before a file is refused as not a location file. */
  readonly maxRowChars?: number;
  /**
   * Whether problems may quote the file's text: a bad value, an unknown column, where the JSON
   * breaks (default true). False for a file whose reader of the messages must not see its text:
   * a declared file's `file:` entry, planned in CI where secrets are set. Positions stay.
   */
  readonly quoteValues?: boolean;
}

/**
 * Parses a location file that arrives in pieces: each piece is split into rows at once (CSV
 * records, JSON array elements) and each row validated, so only the entries are kept, never the
 * file. `rows` counts the rows read so far, for a caller that caps them.
 */
export class LocationFileParser {
  /** Rows read so far: CSV records after the header, JSON array elements. */
  rows = 0;
  private readonly csv: CsvSplitter | undefined;
  private readonly json: JsonArraySplitter | undefined;
  private columns: string[] | undefined;
  private headerProblems: string[] = [];
  private readonly entries: LocationEntry[] = [];
  private readonly problems: string[] = [];
  /** The JSON is not valid: the one problem reported, whatever else was read. */
  private invalidJson: string | undefined;

  constructor(
    format: 'csv' | 'json',
    private readonly limits: LocationFileLimits = {},
  ) {
    if (format === 'csv') this.csv = new CsvSplitter({ maxRecordChars: limits.maxRowChars });
    else {
      this.json = new JsonArraySplitter({
        maxElementChars: limits.maxRowChars,
        quote: this.quote,
      });
    }
  }

  private get quote(): boolean {
    return this.limits.quoteValues !== false;
  }

  /** Whether reading further is pointless: the file cannot be read past some point. */
  get stopped(): boolean {
    return (
      this.csv?.failed === true ||
      this.invalidJson !== undefined ||
      this.json?.problem !== undefined ||
      this.json?.notArrayKept === true
    );
  }

  push(text: string): void {
    if (this.csv) for (const record of this.csv.push(text)) this.addRecord(record);
    if (this.json) for (const element of this.json.push(text)) this.addElement(element);
  }

  end(): ParsedLocationFile {
    if (this.csv) {
      for (const record of this.csv.end()) this.addRecord(record);
      if (this.columns === undefined) {
        return {
          entries: [],
          problems: [...this.csv.problems, 'the file is empty: expected a header row'],
        };
      }
      if (this.headerProblems.length > 0) {
        return { entries: [], problems: [...this.headerProblems, ...this.csv.problems] };
      }
      return { entries: this.entries, problems: [...this.problems, ...this.csv.problems] };
    }
    const json = this.json!;
    json.end();
    if (json.notArray !== undefined) {
      // Not an array: say whether it is JSON at all (what was kept of it, when not cut short).
      try {
        JSON.parse(json.notArray);
        return { entries: [], problems: ['the JSON file must hold an array of objects'] };
      } catch (error) {
        if (json.notArray.length >= (this.limits.maxRowChars ?? Infinity)) {
          return { entries: [], problems: ['the JSON file must hold an array of objects'] };
        }
        this.invalidJson ??= this.quote
          ? (error as Error).message
          : 'it is neither an array nor any JSON';
      }
    }
    this.invalidJson ??= json.problem;
    if (this.invalidJson !== undefined) {
      return { entries: [], problems: [`the file is not valid JSON: ${this.invalidJson}`] };
    }
    return { entries: this.entries, problems: this.problems };
  }

  private addRecord(row: CsvRecord): void {
    if (this.columns === undefined) {
      this.columns = row.fields.map((f) => f.trim().toLowerCase());
      this.headerProblems = checkColumns(this.columns, `line ${row.line}`, this.quote);
      return;
    }
    this.rows += 1;
    if (this.headerProblems.length > 0) return;
    const columns = this.columns;
    const ref = `line ${row.line}`;
    if (row.fields.length !== columns.length) {
      this.problems.push(
        `${ref}: ${row.fields.length} field(s), the header has ${columns.length} (${columns.join(',')})`,
      );
      return;
    }
    const values: RowValues = {};
    columns.forEach((column, i) => {
      const value = row.fields[i] ?? '';
      if (value.trim() !== '') values[column as Field] = value;
    });
    readEntry(ref, values, this.entries, this.problems, this.quote);
  }

  private addElement(element: JsonArrayElement): void {
    this.rows += 1;
    if (this.invalidJson !== undefined) return;
    let item: unknown;
    try {
      item = JSON.parse(element.text);
    } catch (error) {
      this.invalidJson = this.quote
        ? `${(error as Error).message} (index ${element.index})`
        : `index ${element.index} does not parse`;
      return;
    }
    readJsonItems([item], element.index, this.entries, this.problems, this.quote);
  }
}

/** The header's problems; without `quote`, unknown columns are told by position, not name. */
function checkColumns(columns: readonly string[], ref: string, quote: boolean): string[] {
  const problems: string[] = [];
  const known = (c: string) => (LOCATION_FILE_FIELDS as readonly string[]).includes(c);
  const unknown = columns.flatMap((c, i) => (known(c) ? [] : [quote ? `"${c}"` : `${i + 1}`]));
  if (unknown.length > 0) {
    const which = quote ? unknown.join(', ') : `at position(s) ${unknown.join(', ')}`;
    problems.push(
      `${ref}: unknown column(s) ${which}; the header names some of ${LOCATION_FILE_FIELDS.join(',')}`,
    );
  }
  const repeated = columns.filter((c, i) => known(c) && columns.indexOf(c) !== i);
  if (repeated.length > 0)
    problems.push(`${ref}: column(s) ${[...new Set(repeated)].join(', ')} appear twice`);
  const hasPoint = columns.includes('lat') && columns.includes('lng') && columns.includes('name');
  if (!hasPoint && !columns.includes('place')) {
    const got = quote ? ` (got ${columns.join(',')})` : '';
    problems.push(`${ref}: the header needs name,lat,lng or place${got}`);
  }
  return problems;
}

/** Validates elements of a JSON file, the first at index `first`, into entries or problems. */
function readJsonItems(
  items: readonly unknown[],
  first: number,
  entries: LocationEntry[],
  problems: string[],
  quote: boolean,
): void {
  items.forEach((item: unknown, offset) => {
    const ref = `index ${first + offset}`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      problems.push(`${ref}: not an object`);
      return;
    }
    const values: RowValues = {};
    const own = item as Record<string, unknown>;
    const unknown = Object.keys(own).filter(
      (k) => !(LOCATION_FILE_FIELDS as readonly string[]).includes(k),
    );
    if (unknown.length > 0) {
      const which = quote ? ` ${unknown.join(', ')}` : '';
      problems.push(`${ref}: unknown key(s)${which}; use ${LOCATION_FILE_FIELDS.join(', ')}`);
      return;
    }
    for (const field of LOCATION_FILE_FIELDS) {
      const value = own[field];
      if (value === undefined || value === null) continue;
      if (typeof value === 'number' && (field === 'lat' || field === 'lng')) {
        values[field] = value;
      } else if (typeof value === 'string') {
        if (value.trim() !== '') values[field] = value;
      } else {
        problems.push(
          `${ref}: ${field} must be a ${field === 'lat' || field === 'lng' ? 'number' : 'string'}`,
        );
        return;
      }
    }
    readEntry(ref, values, entries, problems, quote);
  });
}

/**
 * Validates one row's values (empty ones absent) into an entry or problems. Text fields are
 * trimmed; coordinates are read as written (`parseCoordinate`): `" 52.5"` is refused. Without
 * `quote`, no problem quotes a value.
 */
function readEntry(
  ref: string,
  values: RowValues,
  entries: LocationEntry[],
  problems: string[],
  quote: boolean,
): void {
  const rowProblems: string[] = [];
  const text = (field: 'name' | 'place' | 'country'): string | undefined => {
    const value = values[field];
    return value === undefined ? undefined : String(value).trim();
  };
  const name = text('name');
  const place = text('place');
  const countryText = text('country');
  let country: string | undefined;
  if (countryText !== undefined) {
    const parsed = parseCountryCode(countryText, quote);
    if (parsed.ok) country = parsed.code;
    else rowProblems.push(`country ${parsed.reason}`);
  }
  for (const [field, value] of [
    ['name', name],
    ['place', place],
  ] as const) {
    const problem =
      value === undefined ? undefined : locationTextMessage(field, field, value, quote);
    if (problem !== undefined) rowProblems.push(problem);
  }
  const hasCoordinates = values.lat !== undefined || values.lng !== undefined;
  if (place !== undefined) {
    if (hasCoordinates) rowProblems.push('give either place or lat,lng, not both');
    if (rowProblems.length === 0) entries.push({ kind: 'place', ref, place, name, country });
  } else {
    const lat = readCoordinate('lat', values.lat, rowProblems, quote);
    const lng = readCoordinate('lng', values.lng, rowProblems, quote);
    if (name === undefined) rowProblems.push('name must not be empty (or give a place instead)');
    if (rowProblems.length === 0 && lat !== undefined && lng !== undefined && name !== undefined) {
      entries.push({ kind: 'point', ref, name, lat, lng, country });
    }
  }
  for (const problem of rowProblems) problems.push(`${ref}: ${problem}`);
}

function readCoordinate(
  field: CoordinateAxis,
  value: string | number | undefined,
  problems: string[],
  quote: boolean,
): number | undefined {
  if (value === undefined) {
    problems.push(`${field} is missing`);
    return undefined;
  }
  const parsed = parseCoordinate(field, value, quote);
  if (!parsed.ok) {
    problems.push(`${field} ${parsed.reason}`);
    return undefined;
  }
  return parsed.value;
}
