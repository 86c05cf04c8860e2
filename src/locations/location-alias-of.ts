import { locationNameKey } from './location-name-key.js';
import { locationTextProblem } from './location-text-problem.js';

/**
 * The alias a location registered by `text` (the place text the operator typed) keeps beside
 * its `name`: the text trimmed, in NFC, or `undefined` when there is none to keep, because it
 * reads as the name (`locationNameKey`) or could not be a name itself (`locationTextProblem`:
 * digits only read as an id, `id:`/`name:` as a reference).
 *
 * @example locationAliasOf('Zürich', 'Zurich') // 'Zurich'
 */
export function locationAliasOf(name: string, text: string | null | undefined): string | undefined {
  const alias = text?.normalize('NFC').trim();
  if (alias === undefined || alias === '') return undefined;
  if (locationNameKey(alias) === locationNameKey(name)) return undefined;
  return locationTextProblem('name', alias) === undefined ? alias : undefined;
}
