import { EnvdataError } from '../errors/envdata-error.js';

/** Largest value of a Postgres `integer`, the type of `location_id`. */
const MAX_LOCATION_ID = 2_147_483_647;

/** Prefixes that say how a reference is meant: `id:12`, `name:12`. */
const PREFIXED = /^(id|name):/i;

/**
 * How a location is named on the command line (`--location`, `locations remove|restore`):
 *
 * - `id:12`: the location with id 12;
 * - `name:Berlin`, `name:12`: the location of that name or alias, as people read it
 *   (`locationNameKey`: case, Unicode form and invisible characters aside);
 * - a bare number `12`: the location with id 12; refused as ambiguous when another location is
 *   named "12" (names of digits only can no longer be registered, but older ones may exist);
 * - anything else: a name.
 */
export type LocationReference =
  | { readonly kind: 'id'; readonly text: string; readonly id: number }
  | { readonly kind: 'name'; readonly text: string; readonly name: string }
  | {
      readonly kind: 'number';
      readonly text: string;
      /** `undefined` when the number is beyond any id (it can then only be a name). */
      readonly id: number | undefined;
      readonly name: string;
    };

/**
 * Reads one reference (see `LocationReference`). An `id:` that is not an id, or an empty
 * `name:`, is a `USAGE` error.
 *
 * @example parseLocationReference('id:2') // { kind: 'id', text: 'id:2', id: 2 }
 */
export function parseLocationReference(text: string): LocationReference {
  const trimmed = text.trim();
  const prefix = PREFIXED.exec(trimmed)?.[1]?.toLowerCase();
  const rest = prefix === undefined ? trimmed : trimmed.slice(prefix.length + 1).trim();
  if (prefix === 'id') {
    const id = idOf(rest);
    if (id === undefined) {
      throw new EnvdataError(
        'USAGE',
        `"${text}" is not a location id: id:N takes a whole number from 1 to ${MAX_LOCATION_ID} — see \`envdata locations list\``,
      );
    }
    return { kind: 'id', text, id };
  }
  if (prefix === 'name') {
    if (rest === '') {
      throw new EnvdataError('USAGE', `"${text}" names no location: write name:NAME`);
    }
    return { kind: 'name', text, name: rest };
  }
  if (/^\d+$/.test(rest)) return { kind: 'number', text, id: idOf(rest), name: rest };
  return { kind: 'name', text, name: rest };
}

/** Whether a text starts with `id:` or `name:` (case-insensitive), so reads as a reference. */
export function isLocationReferencePrefixed(text: string): boolean {
  return PREFIXED.test(text.trim());
}

function idOf(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= MAX_LOCATION_ID ? id : undefined;
}
