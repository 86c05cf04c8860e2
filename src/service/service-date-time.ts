/**
 * The service's date-time format for `from`/`to`: `YYYY-MM-DD hh:mm:ss`, always UTC, with a
 * space. The template type catches most typos at compile time; `parseServiceDateTime` checks the
 * rest (real calendar dates, ranges) at run time.
 */
export type ServiceDateTime = `${number}-${number}-${number} ${number}:${number}:${number}`;

const SERVICE_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Formats an instant as `YYYY-MM-DD hh:mm:ss` in UTC, dropping milliseconds. */
export function formatServiceDateTime(date: Date): ServiceDateTime {
  // toISOString is `YYYY-MM-DDThh:mm:ss.sssZ` for years 0000–9999.
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}` as ServiceDateTime;
}

/**
 * Reads `YYYY-MM-DD hh:mm:ss` as a UTC instant; `undefined` when the text is not exactly that
 * format or names no real date-time (`2024-02-30 00:00:00`, `24:00:00`).
 */
export function parseServiceDateTime(text: string): Date | undefined {
  const match = SERVICE_DATE_TIME.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls 2024-02-30 over to March; a real date survives the round trip.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1) return undefined;
  if (date.getUTCDate() !== day) return undefined;
  return date;
}
