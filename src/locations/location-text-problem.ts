import { locationNameKey } from './location-name-key.js';
import { isLocationReferencePrefixed } from './parse-location-reference.js';
import { findUnsafeCharacter } from './unsafe-characters.js';

/** Longest name or place text accepted. */
export const MAX_LOCATION_TEXT = 200;

/** Why a text cannot be a location's name or place, and what the operator can do about it. */
export interface LocationTextProblem {
  /** Follows the field's name: `contains U+202E (right-to-left override) at character 5`. */
  readonly problem: string;
  /** What to do when the operator typed the text: `type it again without …`. */
  readonly fix: string;
}

/**
 * Why a location name or place text (already trimmed) cannot be registered, or `undefined` when
 * it can. Write it as `${field} ${problem}: ${fix}`; `locationTextMessage` does.
 *
 * Both: not empty, at most 200 characters, no control or bidirectional formatting characters
 * (`findUnsafeCharacter`). Names also, as they read (`locationNameKey`: invisible characters
 * aside): not empty, not only digits, which would read as a location id (`envdata locations
 * remove 2`), and not starting with `id:` or `name:`, the explicit reference prefixes
 * (`parseLocationReference`).
 *
 * The problem quotes the text unless `quote` is false (text the reader of the message must not
 * see: a declared file's expanded `${VAR}`, a `file:` entry's rows).
 */
export function locationTextProblem(
  kind: 'name' | 'place',
  text: string,
  quote = true,
): LocationTextProblem | undefined {
  if (text === '') return { problem: 'must not be empty', fix: `give a ${kind}` };
  if (text.length > MAX_LOCATION_TEXT) {
    return { problem: `is longer than ${MAX_LOCATION_TEXT} characters`, fix: 'shorten it' };
  }
  const unsafe = findUnsafeCharacter(text);
  if (unsafe !== undefined) {
    return {
      problem: `contains ${unsafe.description} at character ${unsafe.position}`,
      fix: 'type it again without control or bidirectional formatting characters',
    };
  }
  if (kind === 'place') return undefined;
  const read = locationNameKey(text);
  if (read === '') {
    return { problem: 'has only invisible characters', fix: 'give a name that can be read' };
  }
  if (/^\d+$/.test(read)) {
    if (!quote) {
      return {
        problem: 'is only digits, which read as a location id',
        fix: 'add a letter, such as "Site 12"',
      };
    }
    return {
      problem: `"${text}" is only digits, which read as a location id (\`envdata locations remove ${text}\` means id ${text})`,
      fix: `add a letter, such as "Site ${text}"`,
    };
  }
  if (isLocationReferencePrefixed(read)) {
    return {
      problem: `${quote ? `"${text}" ` : ''}starts with "id:" or "name:", which envdata reads as a location reference`,
      fix: 'choose another name',
    };
  }
  return undefined;
}

/** `${field} ${problem}: ${fix}`, or `undefined` when the text is fine. */
export function locationTextMessage(
  field: string,
  kind: 'name' | 'place',
  text: string,
  quote = true,
): string | undefined {
  const found = locationTextProblem(kind, text, quote);
  return found === undefined ? undefined : `${field} ${found.problem}: ${found.fix}`;
}
