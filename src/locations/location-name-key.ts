/**
 * Characters Unicode says to draw as nothing (Default_Ignorable_Code_Point): zero-width space
 * and joiners, the soft hyphen, the word joiner, variation selectors, the byte order mark, tags…
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The form in which location names and aliases are compared, as people read them: Unicode NFC
 * (`Zu\u0308rich` and `Z\u00fcrich` are one name), invisible characters removed
 * (`Ber\u200Blin` is `Berlin`), white space runs as one space, then case-folded by upper- then
 * lower-casing, which is locale-independent and folds more than lower-casing alone: `Straße`,
 * `STRASSE` and `strasse` are one name, so are `ς`/`σ`/`Σ`, and so are the Turkish dotless `ı`
 * and `i` (both upper-case to `I`). The dotted capital `İ` stays apart from `I`.
 *
 * Two locations whose names or aliases have the same key cannot both be registered (the
 * `location.name_key` and `location_alias.alias_key` columns hold it, unique across both);
 * `--location` references are looked up by it. Names themselves are stored as given, in NFC.
 *
 * @example locationNameKey('  Ber\u200Blin ') // 'berlin'
 */
export function locationNameKey(name: string): string {
  return name
    .normalize('NFC')
    .replace(INVISIBLE, '')
    .replace(/\s+/gu, ' ')
    .trim()
    .toUpperCase()
    .toLowerCase()
    .normalize('NFC');
}
