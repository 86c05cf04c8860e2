/** The origin `next` is resolved against: a stand-in for wherever the browser reached the console. */
const OWN_ORIGIN = 'http://console.invalid';

/**
 * Where to go after signing in: `next` when it is a path of this console, else `/`. Browsers read
 * a backslash as a slash and drop tabs and newlines from a URL, so `/\evil.example` and
 * `/<TAB>/evil.example` lead to another host as `//evil.example` does: `next` must start with
 * one `/` followed by neither `/` nor `\`, hold no backslash or control character anywhere, and
 * resolve to the console's own origin. The answer is the resolved path, query and fragment, as
 * the URL parser wrote them.
 *
 * @example safeNext('/#/runs') // '/#/runs'
 * @example safeNext('/\\evil.example') // '/'
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !/^\/(?![/\\])/.test(next) || [...next].some(isRefused)) return '/';
  let url: URL;
  try {
    url = new URL(next, OWN_ORIGIN);
  } catch {
    return '/';
  }
  return url.origin === OWN_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : '/';
}

/** A backslash, or a control character (C0, DEL, C1): URL parsers drop or rewrite them. */
function isRefused(character: string): boolean {
  const code = character.codePointAt(0)!;
  return character === '\\' || code < 0x20 || (code >= 0x7f && code <= 0x9f);
}
