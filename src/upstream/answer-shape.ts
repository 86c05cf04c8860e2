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
 * The shape of `document`, a body as `JSON.parse` read it. One walk over the body through a
 * tree of the paths met so far: a path's text is made once, when first met, and its types are
 * kept as a bit mask, so an answer of many alike records costs a map lookup per value.
 */
export function answerShapeOf(document: unknown, options: ShapeOptions = {}): AnswerShape {
  const maps = (options.maps ?? []).map((m) => m.split('.'));
  const root = newNode('', false);
  const isMap = (path: string) => maps.length > 0 && maps.some((m) => endsWith(path, m));
  walk(document, root, isMap);
  const types = new Map<string, number>();
  flatten(root, types);
  types.delete('');
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

/** A key path met in the walk: its types so far, and the paths below it. */
interface PathNode {
  readonly path: string;
  /** Its keys collapse to `*` (`ShapeOptions.maps`). */
  readonly map: boolean;
  types: number;
  children: Map<string, PathNode> | undefined;
  element: PathNode | undefined;
}

function newNode(path: string, map: boolean): PathNode {
  return { path, map, types: 0, children: undefined, element: undefined };
}

function walk(value: unknown, node: PathNode, isMap: (path: string) => boolean): void {
  if (value === null || typeof value !== 'object') {
    node.types |= TYPE_BIT[typeof value] ?? NULL_BIT;
    return;
  }
  if (Array.isArray(value)) {
    node.types |= ARRAY_BIT;
    const element = (node.element ??= newNode(`${node.path}[]`, false));
    for (const item of value) walk(item, element, isMap);
    return;
  }
  node.types |= OBJECT_BIT;
  const children = (node.children ??= new Map());
  const prefix = node.path === '' ? '' : `${node.path}.`;
  for (const key in value) {
    const name = node.map ? '*' : key;
    let child = children.get(name);
    if (child === undefined) {
      const path = `${prefix}${name}`;
      child = newNode(path, isMap(path));
      children.set(name, child);
    }
    walk((value as Record<string, unknown>)[key], child, isMap);
  }
}

function flatten(node: PathNode, types: Map<string, number>): void {
  types.set(node.path, node.types);
  if (node.element) flatten(node.element, types);
  if (node.children) for (const child of node.children.values()) flatten(child, types);
}

const bit = (type: JsonType): number => 1 << JSON_TYPES.indexOf(type);
const ARRAY_BIT = bit('array');
const OBJECT_BIT = bit('object');
const NULL_BIT = bit('null');
const TYPE_BIT: Readonly<Record<string, number>> = {
  number: bit('number'),
  string: bit('string'),
  boolean: bit('boolean'),
};

/** Whether `path`'s last segments are `pattern` (`*` matching any one). */
function endsWith(path: string, pattern: readonly string[]): boolean {
  const segments = path.split('.');
  if (segments.length < pattern.length) return false;
  const offset = segments.length - pattern.length;
  return pattern.every((p, i) => p === '*' || p === segments[offset + i]);
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
