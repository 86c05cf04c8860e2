import { createHash } from 'node:crypto';
import { LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { locationNameKey } from '../locations/location-name-key.js';
import { locationTextProblem } from '../locations/location-text-problem.js';
import { parseCountryCode } from '../locations/parse-country-code.js';
import { roundCoordinate } from '../locations/insert-location.js';
import { didYouMean } from '../errors/did-you-mean.js';
import { plainZodMessage } from '../errors/plain-zod-message.js';
import { DATASETS, type Dataset } from '../types.js';
import {
  datasetEntry,
  declaredFileSchema,
  fileEntry,
  locationEntry,
  placeEntry,
  pointEntry,
  type DeclaredFileInput,
  type FileEntry,
} from './declared-file-schema.js';
import type {
  DeclaredDataset,
  DeclaredFile,
  DeclaredLocation,
  DeclaredLocationFile,
} from './declared-file.js';
import { declaredFileInvalid, type DeclaredProblem } from './declared-problem.js';
import { expandVariables } from './expand-variables.js';
import { schemaKeysAt } from './schema-keys-at.js';
import { parseSince } from './since-date.js';
import { yamlPosition, type YamlPath } from './yaml-position.js';

export interface ParseDeclaredOptions {
  readonly fileName: string;
  /** What `${VAR}` references read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Reads the locations of a `file:` entry (`readDeclaredLocationFile`), at most `maxRows` rows
   * of it; its problems are reported at the entry. Without it, a `file:` entry is a problem.
   */
  readonly readLocationFile?: (path: string, maxRows: number) => Promise<DeclaredLocationFile>;
  /**
   * Most locations of the file, its own and its `file:` entries' together (ENVDATA_IMPORT_MAX_ROWS,
   * as one `envdata locations import` reads): past it the file is refused, and no further `file:`
   * entry read. Default: no limit.
   */
  readonly maxLocations?: number;
}

/**
 * Most alias expansions a declared file may make (the `yaml` library's `maxAliasCount`): an
 * anchor used a few times is fine, an "alias bomb" (aliases of aliases, each doubling the value)
 * is refused before it is built.
 */
export const MAX_DECLARED_ALIASES = 100;

/**
 * Reads `envdata.yaml`: YAML syntax, then the schema (`declaredFileSchema`), then what a schema
 * cannot say (dates, countries, names, duplicate locations, secrets, `${VAR}`s that are not
 * set). Every problem is collected with its line and column and thrown at once as one
 * `VALIDATION_FAILED` (`declaredFileInvalid`), an alias bomb included. No problem quotes a
 * value read from the environment or a row of a `file:` entry: positions, keys and the file's
 * own names only.
 */
export async function parseDeclaredFile(
  text: string,
  options: ParseDeclaredOptions,
): Promise<DeclaredFile> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, version: '1.2' });
  const problems: DeclaredProblem[] = [];
  // One problem per place: a value refused once (a secret, an unset `${VAR}`) is not judged again.
  const at = (path: YamlPath, message: string, key?: string) => {
    const where = yamlPosition(doc, lines, path, key);
    if (!problems.some((p) => p.line === where.line && p.column === where.column)) {
      problems.push({ ...where, message });
    }
  };
  for (const error of doc.errors) {
    const { line, col } = lines.linePos(error.pos[0]);
    // The library ends some messages with the text it stumbled on (`Not a YAML token: …`):
    // the position says where it is, and the message quotes nothing of the file.
    const message = error.message.split('\n')[0]!.replace(/: .*$/, '');
    problems.push({ line, column: col, message });
  }
  if (doc.errors.some((e) => e.code !== 'DUPLICATE_KEY')) {
    throw declaredFileInvalid(options.fileName, problems);
  }
  let plain: unknown;
  try {
    plain = doc.toJS({ maxAliasCount: MAX_DECLARED_ALIASES }) ?? {};
  } catch {
    // `toJS` throws only on aliases: too many expanded (a ReferenceError), or one it cannot resolve.
    const { line, col } = lines.linePos(firstAliasOffset(doc));
    problems.push({
      line,
      column: col,
      message: `the aliases (*name) expand too far: at most ${MAX_DECLARED_ALIASES} expansions, write the values out instead`,
    });
    throw declaredFileInvalid(options.fileName, problems);
  }
  const isFileValue = (path: YamlPath) =>
    path.length === 3 && path[0] === 'locations' && path[2] === 'file';
  const expanded = expandVariables(plain, options.env, isFileValue);
  for (const p of expanded.problems) at(p.path, `${dotted(p.path)}: ${p.message}`);
  const parsed = declaredFileSchema.safeParse(expanded.value, { error: plainZodMessage });
  for (const issue of schemaIssues(parsed.error?.issues ?? [], expanded.value)) {
    if (issue.code === 'unrecognized_keys') {
      const known = schemaKeysAt(declaredFileSchema, issue.path);
      for (const key of issue.keys) {
        const hint = didYouMean(key, known);
        at(issue.path, `${dotted([...issue.path, key])}: unknown key "${key}"${hint}`, key);
      }
    } else if (valueAt(expanded.value, issue.path) === undefined) {
      at(issue.path, `${dotted(issue.path)}: missing`);
    } else if (issue.path.length === 0) {
      at(
        issue.path,
        `the file must be a map of version, locations and datasets (${issue.message})`,
      );
    } else at(issue.path, `${dotted(issue.path)}: ${issue.message}`);
  }
  // What parses of the rest is checked too, so every problem is listed at once.
  const usable = parsed.data ?? usableParts(expanded.value);
  const datasets = readDatasets(usable, at);
  const locations = await readLocations(usable, options, at, (path) => {
    const { line, column } = yamlPosition(doc, lines, path);
    return `${options.fileName}:${line}:${column}`;
  });
  const groups = new Set(locations.flatMap((l) => (l.group === undefined ? [] : [l.group])));
  for (const d of datasets) {
    for (const group of d.groups.keys()) {
      if (!groups.has(group)) {
        at(
          ['datasets', d.dataset, 'groups'],
          `datasets.${d.dataset}.groups.${group}: no location is in group "${group}"`,
          group,
        );
      }
    }
  }
  if (problems.length > 0) throw declaredFileInvalid(options.fileName, problems);
  const digest = createHash('sha256').update(text).digest('hex');
  return { fileName: options.fileName, digest, locations, datasets };
}

/** Where the first alias (`*name`) of the document is, for a problem about aliases. */
function firstAliasOffset(doc: Document): number {
  let offset = 0;
  visit(doc, {
    Alias(_, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

/**
 * The entries of a file that failed the schema which are valid on their own (an index keeps its
 * place: a bad entry is `undefined`), for the checks that follow the schema.
 */
function usableParts(value: unknown): DeclaredFileInput {
  const locations = valueAt(value, ['locations']);
  const datasets = valueAt(value, ['datasets']);
  const entries = Array.isArray(locations) ? (locations as unknown[]) : [];
  return {
    version: 1,
    locations: entries.map(
      (entry) => locationEntry.safeParse(entry).data,
    ) as DeclaredFileInput['locations'],
    datasets: Object.fromEntries(
      DATASETS.map((d) => [d, datasetEntry.safeParse(valueAt(datasets, [d])).data]),
    ),
  };
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (v, k) =>
      v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined,
    value,
  );
}

type At = (path: YamlPath, message: string, key?: string) => void;

/**
 * zod reports an entry of `locations` that fits none of its three shapes as one union issue: the
 * entry is checked again against the shape its keys choose (`file`, `place`, else a point), so
 * the operator reads what is wrong with the entry they meant.
 */
function schemaIssues(issues: readonly z.core.$ZodIssue[], value: unknown): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || issue.path[0] !== 'locations') return [issue];
    const entry = valueAt(value, issue.path);
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      return [{ ...issue, message: 'must be a map with name, lat and lng; or place; or file' }];
    }
    const shape = 'file' in entry ? fileEntry : 'place' in entry ? placeEntry : pointEntry;
    const again = shape.safeParse(entry, { error: plainZodMessage });
    return (again.error?.issues ?? []).map((i) => ({ ...i, path: [...issue.path, ...i.path] }));
  });
}

function readDatasets(file: DeclaredFileInput, at: At): DeclaredDataset[] {
  const out: DeclaredDataset[] = [];
  for (const [name, entry] of Object.entries(file.datasets)) {
    if (entry === undefined) continue;
    const dataset = name as Dataset;
    const check = (since: string, path: YamlPath) => {
      const parsed = parseSince(since);
      if (!parsed.ok) at(path, `${dotted(path)} ${parsed.reason}`);
    };
    check(entry.since, ['datasets', dataset, 'since']);
    const groups = new Map(Object.entries(entry.groups ?? {}).map(([g, v]) => [g, v.since]));
    for (const [group, since] of groups)
      check(since, ['datasets', dataset, 'groups', group, 'since']);
    out.push({ dataset, since: entry.since, groups, drift: entry.drift });
  }
  return out;
}

/**
 * The locations of the file, `file:` entries read, each checked (country, name and place text)
 * and unique: by name as it reads (`locationNameKey`), by point (4 decimals), a place without a
 * name by its place text.
 */
async function readLocations(
  file: DeclaredFileInput,
  options: ParseDeclaredOptions,
  at: At,
  refOf: (path: YamlPath) => string,
): Promise<DeclaredLocation[]> {
  const out: { location: DeclaredLocation; path: YamlPath }[] = [];
  const max = options.maxLocations ?? Number.POSITIVE_INFINITY;
  // What `file:` entries may still add: the file's own locations count first.
  let room = max - file.locations.filter((e) => e !== undefined && !('file' in e)).length;
  if (room < 0) at(['locations'], `locations: ${tooMany(max)}`);
  for (const [index, entry] of file.locations.entries()) {
    if (entry === undefined) continue; // refused by the schema: reported already
    const path = ['locations', index];
    const ref = refOf(path);
    if ('file' in entry) {
      if (room < 0) continue; // refused already: no further file is read
      const read = await readFileEntry(entry, options, room, (m) => at([...path, 'file'], m));
      if (read === 'too many') {
        room = -1;
        continue;
      }
      room -= read.length;
      for (const location of read) {
        out.push({
          location: { ...location, group: entry.group, ref: `${ref} (${location.ref})` },
          path,
        });
      }
      continue;
    }
    // Values may come from `${VAR}`s: their problems never quote them.
    const country =
      entry.country === undefined ? undefined : parseCountryCode(entry.country, false);
    if (country?.ok === false)
      at([...path, 'country'], `${dotted([...path, 'country'])}: ${country.reason}`);
    const code = country?.ok ? country.code : undefined;
    const location: DeclaredLocation =
      'place' in entry
        ? {
            kind: 'place',
            place: entry.place.trim(),
            name: entry.name?.trim(),
            country: code,
            ingestByPlace: entry.ingestByPlace ?? false,
            group: entry.group,
            ref,
          }
        : {
            kind: 'point',
            name: entry.name.trim(),
            lat: entry.lat,
            lng: entry.lng,
            country: code,
            group: entry.group,
            ref,
          };
    const texts: [kind: 'name' | 'place', text: string | undefined][] =
      location.kind === 'place'
        ? [
            ['place', location.place],
            ['name', location.name],
          ]
        : [['name', location.name]];
    for (const [kind, value] of texts) {
      if (value === undefined) continue;
      const problem = locationTextProblem(kind, value, false);
      if (problem)
        at([...path, kind], `${dotted([...path, kind])} ${problem.problem}: ${problem.fix}`);
    }
    out.push({ location, path });
  }
  const seen = new Map<string, DeclaredLocation>();
  for (const { location, path } of out) {
    const keys =
      location.kind === 'point'
        ? [
            `name ${locationNameKey(location.name)}`,
            `point ${roundCoordinate(location.lat)}, ${roundCoordinate(location.lng)}`,
          ]
        : [
            location.name === undefined
              ? `place ${locationNameKey(location.place)}`
              : `name ${locationNameKey(location.name)}`,
          ];
    for (const key of keys) {
      const first = seen.get(key);
      if (first === undefined) seen.set(key, location);
      else
        at(
          path,
          `${dotted(path)}: duplicate location: the ${key.replace(/ .*/, '')} of ${location.ref} is also that of ${first.ref}`,
        );
    }
  }
  return out.map((o) => o.location);
}

async function readFileEntry(
  entry: FileEntry,
  options: ParseDeclaredOptions,
  room: number,
  report: (message: string) => void,
): Promise<readonly DeclaredLocation[] | 'too many'> {
  if (options.readLocationFile === undefined) {
    report(`file: ${entry.file}: location files are not read here`);
    return [];
  }
  const read = await options.readLocationFile(entry.file, room);
  if (read.tooManyRows) {
    report(`file: ${entry.file}: ${tooMany(options.maxLocations ?? room)}`);
    return 'too many';
  }
  for (const problem of read.problems) report(`file: ${entry.file}: ${problem}`);
  return read.locations;
}

function tooMany(max: number): string {
  const n = max.toLocaleString('en-US');
  return `the declared file holds more than ${n} locations, its own and its files' together, the most it may (ENVDATA_IMPORT_MAX_ROWS=${max}, as one \`envdata locations import\` reads): nothing was done; declare fewer, or raise ENVDATA_IMPORT_MAX_ROWS`;
}

/** `locations[2].lat`, `datasets.pollen.since`. */
function dotted(path: YamlPath): string {
  return path
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i === 0 ? '' : '.'}${String(k)}`))
    .join('');
}
