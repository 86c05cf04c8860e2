import { countries } from 'countries-list';

/**
 * Whether `code` is an ISO 3166-1 alpha-2 country code, upper case, of a country `countries-list`
 * knows: `DE`, `US`, `XK` (Kosovo, user-assigned but in common use); not `ZZ`, not `de`.
 */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && Object.hasOwn(countries, code);
}
