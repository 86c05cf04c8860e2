import { isCountryCode } from '../geo/is-country-code.js';

/** A country code read from a flag or a file: upper case, or why it is not one. */
export type ParsedCountryCode =
  { readonly ok: true; readonly code: string } | { readonly ok: false; readonly reason: string };

/**
 * Reads an ISO 3166-1 alpha-2 country code in any case (`de` → `DE`); refuses other text and
 * codes of no country (`ZZ`). The `reason` follows the field's name: `--country must be …`; it
 * quotes the text unless `quote` is false (text the reader of the message must not see).
 */
export function parseCountryCode(text: string, quote = true): ParsedCountryCode {
  const trimmed = text.trim();
  if (!/^[A-Za-z]{2}$/.test(trimmed)) {
    const got = quote ? ` (got "${text}")` : '';
    return { ok: false, reason: `must be a two-letter code such as DE${got}` };
  }
  const code = trimmed.toUpperCase();
  if (!isCountryCode(code)) {
    const which = quote ? `"${text}"` : 'this';
    return {
      ok: false,
      reason: `must be an ISO 3166-1 alpha-2 country code such as DE, US or AU; ${which} is no country's code`,
    };
  }
  return { ok: true, code };
}
