/**
 * Characters that never belong in a location name or place: C0 controls (U+0000–U+001F), DEL and
 * C1 controls (U+007F–U+009F), the line and paragraph separators (U+2028, U+2029) and the
 * bidirectional formatting characters: marks (U+200E, U+200F, U+061C), embeddings and overrides
 * (U+202A–U+202E) and isolates (U+2066–U+2069). They break log lines, tables and CSV exports,
 * or make a name read differently from what it is ("Trojan Source"): `"Bonn\u202Eyrreb"` shows
 * as "Bonnberry".
 */
export function isUnsafeCodePoint(codePoint: number): boolean {
  return (
    codePoint <= 0x1f ||
    (codePoint >= 0x7f && codePoint <= 0x9f) ||
    codePoint === 0x061c ||
    codePoint === 0x200e ||
    codePoint === 0x200f ||
    (codePoint >= 0x2028 && codePoint <= 0x202e) ||
    (codePoint >= 0x2066 && codePoint <= 0x2069)
  );
}

/** The first unsafe character of a text, for messages. */
export interface UnsafeCharacter {
  /** 1-based position among the text's characters (code points). */
  readonly position: number;
  /** `U+202E (right-to-left override)`. */
  readonly description: string;
}

const NAMES: Readonly<Record<number, string>> = {
  0x09: 'tab',
  0x0a: 'line feed',
  0x0d: 'carriage return',
  0x061c: 'Arabic letter mark',
  0x200e: 'left-to-right mark',
  0x200f: 'right-to-left mark',
  0x2028: 'line separator',
  0x2029: 'paragraph separator',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
};

/** Unsafe characters that separate words: replaced by a space rather than dropped. */
const BREAKS: ReadonlySet<number> = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x85, 0x2028, 0x2029]);

/** The first character `isUnsafeCodePoint` refuses, or `undefined` when the text is clean. */
export function findUnsafeCharacter(text: string): UnsafeCharacter | undefined {
  let position = 0;
  for (const character of text) {
    position += 1;
    const codePoint = character.codePointAt(0) ?? 0;
    if (isUnsafeCodePoint(codePoint)) {
      const hex = codePoint.toString(16).toUpperCase().padStart(4, '0');
      const name = NAMES[codePoint] ?? 'a control character';
      return { position, description: `U+${hex} (${name})` };
    }
  }
  return undefined;
}

/**
 * The text without unsafe characters, for text envdata did not type itself (names from the
 * service's geocoding): line breaks, tabs and separators become spaces, the rest is dropped,
 * and runs of spaces collapse. `"Mitte\u202E\n Berlin"` → `"Mitte Berlin"`.
 */
export function stripUnsafeCharacters(text: string): string {
  let out = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (!isUnsafeCodePoint(codePoint)) out += character;
    else if (BREAKS.has(codePoint)) out += ' ';
  }
  return out.replace(/ {2,}/g, ' ').trim();
}
