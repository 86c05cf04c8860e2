import { locationTextMessage } from './location-text-problem.js';
import { parseCoordinate, type CoordinateAxis } from './parse-coordinate.js';
import { parseCountryCode } from './parse-country-code.js';
import { parseCsv } from './parse-csv.js';

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
 * Every invalid row is reported, not only the first.
 *
 * @example
 * parseLocationFile('name,lat,lng\nBerlin,52.52,13.405\n', 'csv').entries[0]
 * // { kind: 'point', ref: 'line 2', name: 'Berlin', lat: 52.52, lng: 13.405, country: undefined }
 */
export function parseLocationFile(text: string, format: 'csv' | 'json'): ParsedLocationFile {
  return format === 'json' ? parseJsonFile(text) : parseCsvFile(text);
}

/** `json` when the file name ends in `.json` or the text starts with `[`, else `csv`. */
export function locationFileFormat(fileName: string, text: string): 'csv' | 'json' {
  if (/\.json$/i.test(fileName)) return 'json';
  if (/\.csv$/i.test(fileName)) return 'csv';
  return text.trimStart().startsWith('[') ? 'json' : 'csv';
}

function parseCsvFile(text: string): ParsedLocationFile {
  const csv = parseCsv(text);
  const [header, ...rows] = csv.records;
  if (header === undefined) {
    return { entries: [], problems: [...csv.problems, 'the file is empty: expected a header row'] };
  }
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const headerProblems = checkColumns(columns, `line ${header.line}`);
  if (headerProblems.length > 0)
    return { entries: [], problems: [...headerProblems, ...csv.problems] };
  const entries: LocationEntry[] = [];
  const problems: string[] = [];
  for (const row of rows) {
    const ref = `line ${row.line}`;
    if (row.fields.length !== columns.length) {
      problems.push(
        `${ref}: ${row.fields.length} field(s), the header has ${columns.length} (${columns.join(',')})`,
      );
      continue;
    }
    const values: RowValues = {};
    columns.forEach((column, i) => {
      const value = row.fields[i] ?? '';
      if (value.trim() !== '') values[column as Field] = value;
    });
    readEntry(ref, values, entries, problems);
  }
  return { entries, problems: [...problems, ...csv.problems] };
}

function checkColumns(columns: readonly string[], ref: string): string[] {
  const problems: string[] = [];
  const unknown = columns.filter((c) => !(LOCATION_FILE_FIELDS as readonly string[]).includes(c));
  if (unknown.length > 0) {
    problems.push(
      `${ref}: unknown column(s) ${unknown.map((c) => `"${c}"`).join(', ')}; the header names some of ${LOCATION_FILE_FIELDS.join(',')}`,
    );
  }
  const repeated = columns.filter((c, i) => columns.indexOf(c) !== i);
  if (repeated.length > 0)
    problems.push(`${ref}: column(s) ${[...new Set(repeated)].join(', ')} appear twice`);
  const hasPoint = columns.includes('lat') && columns.includes('lng') && columns.includes('name');
  if (!hasPoint && !columns.includes('place')) {
    problems.push(`${ref}: the header needs name,lat,lng or place (got ${columns.join(',')})`);
  }
  return problems;
}

function parseJsonFile(text: string): ParsedLocationFile {
  let json: unknown;
  try {
    json = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (error) {
    return { entries: [], problems: [`the file is not valid JSON: ${(error as Error).message}`] };
  }
  if (!Array.isArray(json)) {
    return { entries: [], problems: ['the JSON file must hold an array of objects'] };
  }
  const entries: LocationEntry[] = [];
  const problems: string[] = [];
  json.forEach((item: unknown, index) => {
    const ref = `index ${index}`;
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
      problems.push(
        `${ref}: unknown key(s) ${unknown.join(', ')}; use ${LOCATION_FILE_FIELDS.join(', ')}`,
      );
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
    readEntry(ref, values, entries, problems);
  });
  return { entries, problems };
}

/**
 * Validates one row's values (empty ones absent) into an entry or problems. Text fields are
 * trimmed; coordinates are read as written (`parseCoordinate`): `" 52.5"` is refused.
 */
function readEntry(
  ref: string,
  values: RowValues,
  entries: LocationEntry[],
  problems: string[],
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
    const parsed = parseCountryCode(countryText);
    if (parsed.ok) country = parsed.code;
    else rowProblems.push(`country ${parsed.reason}`);
  }
  for (const [field, value] of [
    ['name', name],
    ['place', place],
  ] as const) {
    const problem = value === undefined ? undefined : locationTextMessage(field, field, value);
    if (problem !== undefined) rowProblems.push(problem);
  }
  const hasCoordinates = values.lat !== undefined || values.lng !== undefined;
  if (place !== undefined) {
    if (hasCoordinates) rowProblems.push('give either place or lat,lng, not both');
    if (rowProblems.length === 0) entries.push({ kind: 'place', ref, place, name, country });
  } else {
    const lat = readCoordinate('lat', values.lat, rowProblems);
    const lng = readCoordinate('lng', values.lng, rowProblems);
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
): number | undefined {
  if (value === undefined) {
    problems.push(`${field} is missing`);
    return undefined;
  }
  const parsed = parseCoordinate(field, value);
  if (!parsed.ok) {
    problems.push(`${field} ${parsed.reason}`);
    return undefined;
  }
  return parsed.value;
}
