/**
 * `text` with the instant its event happened, in UTC and 24 hours: `… (at 2026-11-28 14:03
 * UTC)`. An alert may be delivered minutes or hours after its event (a target down, no process
 * running): the text says when it happened, not only when it arrived.
 */
export function withEventTime(text: string, at: Date): string {
  const iso = at.toISOString();
  return `${text} (at ${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC)`;
}
