/**
 * How an API key appears in stats and logs: its first four characters and an ellipsis
 * (`envd…`); `(none)` when the request had no key. Keys sharing their first four characters
 * share a line.
 */
export function maskKey(key: string | undefined): string {
  if (key === undefined || key === '') return '(none)';
  return `${key.slice(0, 4)}…`;
}
