/**
 * The form place names are compared in: diacritics removed, lower case, every run of
 * punctuation or space turned into one space. `"L'Haÿ-les-Roses"` → `"l hay les roses"`.
 */
export function normalizePlaceName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
