import { SHARE_FIELDS, type ShareUnits } from '../types.js';

/**
 * The shape of one answer of the service (issue 36, "drift seen"): what a person comparing two
 * answers of one endpoint would call "the same format".
 *
 * - `paths`: every key path of the body with the JSON types its values had, the union over all
 *   of the answer's records. An array's elements share one path (`data.history[].humidity`);
 *   the keys of an object the dataset says is a map (pollen `Species.Tree`, whose species names
 *   vary by region) collapse to `*` (`data[].Species.Tree.*`), so a change of region is not a
 *   change of shape. Numbers are `number`, whole or not.
 * - `envelope`: the form of the envelope, read off the paths: which status key (`message` or
 *   `status`), `data` as an array or an object, the record list under `data.history` or
 *   `data.forecast`.
 * - `status`: the `message`/`status` text as sent (`"Success"` and `"success"` differ).
 * - `units`: the unit each share field is read in (`humidity`, `cloudCover`,
 *   `precipProbability`): the unit the answer's values told, else the unit that field last
 *   told (a dry day's zeros tell nothing and make no new shape); absent while no answer told it.
 */
export interface AnswerShape {
  readonly paths: Readonly<Record<string, readonly JsonType[]>>;
  readonly envelope: string;
  readonly status: string | null;
  readonly units: ShareUnits;
}

/** The JSON types a value can have (`typeof`, with `null` and `array` apart). */
export const JSON_TYPES = ['array', 'boolean', 'null', 'number', 'object', 'string'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** What `answerShapeOf` needs besides the body. */
export interface ShapeOptions {
  /**
   * Objects whose keys are data, not format, as path suffixes with `*` for any one key:
   * `Species.*` (each species category), `SpeciesRisk`. Their keys collapse to `*`.
   */
  readonly maps?: readonly string[];
  /** The unit each share field is read in (see `AnswerShape.units`). */
  readonly units?: ShareUnits;
}

/**
 * The shape of `document`, a body as `JSON.parse` read it. One walk over the body; the types of
 * a path are kept as a bit mask until the end.
 */
export function answerShapeOf(document: unknown, options: ShapeOptions = {}): AnswerShape {
  const maps = (options.maps ?? []).map((m) => m.split('.'));
  const types = new Map<string, number>();
  const mapPaths = new Map<string, boolean>();
  const isMap = (path: string): boolean => {
    let known = mapPaths.get(path);
    if (known === undefined) mapPaths.set(path, (known = maps.some((m) => endsWith(path, m))));
    return known;
  };
  walk(document, '', types, maps.length > 0 ? isMap : () => false);
  const paths: Record<string, JsonType[]> = {};
  for (const path of [...types.keys()].sort()) paths[path] = typesOf(types.get(path)!);
  const units: Record<string, string> = {};
  for (const field of SHARE_FIELDS) {
    const unit = options.units?.[field];
    if (unit !== undefined) units[field] = unit;
  }
  return {
    paths,
    envelope: envelopeOf(paths),
    status: statusOf(document),
    units: units as ShareUnits,
  };
}

function walk(
  value: unknown,
  path: string,
  types: Map<string, number>,
  isMap: (path: string) => boolean,
): void {
  const type = typeOfValue(value);
  if (path !== '') types.set(path, (types.get(path) ?? 0) | (1 << JSON_TYPES.indexOf(type)));
  if (type === 'array') {
    const inner = `${path}[]`;
    for (const element of value as unknown[]) walk(element, inner, types, isMap);
  } else if (type === 'object') {
    const collapse = path !== '' && isMap(path);
    const prefix = path === '' ? '' : `${path}.`;
    for (const key in value as Record<string, unknown>) {
      const child = (value as Record<string, unknown>)[key];
      walk(child, collapse ? `${prefix}*` : `${prefix}${key}`, types, isMap);
    }
  }
}

/** Whether `path`'s last segments are `pattern` (`*` matching any one). */
function endsWith(path: string, pattern: readonly string[]): boolean {
  const segments = path.split('.');
  if (segments.length < pattern.length) return false;
  const offset = segments.length - pattern.length;
  return pattern.every((p, i) => p === '*' || p === segments[offset + i]);
}

function typeOfValue(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'number' || type === 'string' || type === 'boolean' || type === 'object'
    ? type
    : 'null';
}

function typesOf(mask: number): JsonType[] {
  return JSON_TYPES.filter((_, i) => (mask & (1 << i)) !== 0);
}

/** `message, data[]`, `status, data.history[]`, `message, data{}` (one record object). */
function envelopeOf(paths: Readonly<Record<string, readonly JsonType[]>>): string {
  const keys = ['message', 'status'].filter((k) => paths[k] !== undefined);
  const data = paths.data ?? [];
  const forms: string[] = [];
  if (data.includes('array')) forms.push('data[]');
  if (data.includes('object')) {
    const list = ['history', 'forecast'].find((k) => paths[`data.${k}`] !== undefined);
    forms.push(list !== undefined ? `data.${list}[]` : 'data{}');
  }
  return [...keys, ...forms].join(', ') || '(no envelope)';
}

function statusOf(document: unknown): string | null {
  if (typeof document !== 'object' || document === null) return null;
  const { message, status } = document as { message?: unknown; status?: unknown };
  const text = typeof message === 'string' ? message : status;
  return typeof text === 'string' ? text : null;
}
