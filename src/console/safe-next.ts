/** The origin `next` is resolved against: a stand-in for wherever the browser reached the console. */
const OWN_ORIGIN = 'http://console.invalid';

/**
 * Where to go after signing in: `next` when it is a path of this console, else `/`. Browsers read
 * a backslash as a slash and drop tabs and newlines from a URL, so `/\evil.example` and
 * `/<TAB>/evil.example` lead to another host as `//evil.example` does: `next` must start with
 * one `/` followed by neither `/` nor `\`, hold no backslash or control character anywhere, and
 * resolve to the console's own origin. The answer is the resolved path, query and fragment, as
 * the URL parser wrote them, and it is held to the same rule: resolving dot segments can make a
 * host of a path (`/..//evil.example` resolves to `//evil.example`), so what is checked is what
 * is returned, not only what came in.
 *
 * @example safeNext('/#/runs') // '/#/runs'
 * @example safeNext('/\\evil.example') // '/'
 * @example safeNext('/..//evil.example') // '/'
 */
export function safeNext(next: string | null | undefined): string {
  if (!isOwnPath(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, OWN_ORIGIN);
  } catch {
    return '/';
  }
  if (url.origin !== OWN_ORIGIN) return '/';
  const resolved = `${url.pathname}${url.search}${url.hash}`;
  return isOwnPath(resolved) ? resolved : '/';
}

/** One `/` followed by neither `/` nor `\`, and no backslash or control character anywhere. */
function isOwnPath(path: string | null | undefined): path is string {
  return !!path && /^\/(?![/\\])/.test(path) && ![...path].some(isRefused);
}

/** A backslash, or a control character (C0, DEL, C1): URL parsers drop or rewrite them. */
function isRefused(character: string): boolean {
  const code = character.codePointAt(0)!;
  return character === '\\' || code < 0x20 || (code >= 0x7f && code <= 0x9f);
}
