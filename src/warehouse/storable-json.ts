/**
 * A value as `jsonb` text Postgres can store, or `null` for `undefined`. `jsonb` refuses the
 * escape `\u0000` (a NUL cannot be text in Postgres), so a NUL in a string or a key is written as
 * the six characters `\u0000` instead: the quarantine keeps a readable copy of a record that
 * carried one, and the raw payload archive keeps the body exactly as received.
 *
 * @example storableJson({ summary: 'a\u0000b' }) // '{"summary":"a\\u0000b"}'
 */
export function storableJson(value: unknown): string | null {
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return null;
  // `\u0000` preceded by an even run of backslashes is the escape of a NUL (an odd run would make
  // it text that merely reads `\u0000`, which jsonb stores as is).
  return text.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\\\u0000');
}

/** Text Postgres can store: each NUL written as the six characters `\u0000`. */
export function storableText(text: string): string {
  return text.replaceAll('\u0000', '\\u0000');
}
