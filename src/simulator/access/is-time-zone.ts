/**
 * Whether `name` is an IANA time zone this runtime knows (`UTC`, `Europe/Berlin`), as the
 * quota's `timeZone` must be.
 */
export function isTimeZone(name: string): boolean {
  if (name === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
