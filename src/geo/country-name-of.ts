import { countries } from 'countries-list';

let displayNames: Intl.DisplayNames | undefined;

/**
 * The English name of an ISO 3166-1 alpha-2 country code (`DE` → `Germany`), from the ICU data
 * of Node (`Intl.DisplayNames`), falling back to `countries-list`, then to the code itself.
 */
export function countryNameOf(countryCode: string): string {
  const code = countryCode.toUpperCase();
  displayNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  try {
    const name = displayNames.of(code);
    if (name !== undefined) return name;
  } catch {
    // Not a well-formed region code: fall through to the table.
  }
  return (countries as Record<string, { name: string } | undefined>)[code]?.name ?? code;
}
