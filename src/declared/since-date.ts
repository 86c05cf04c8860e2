/** A `since` read: the first hour wanted, or why the text is not one. */
export type ParsedSince =
  | { readonly ok: true; readonly at: (now: Date) => Date }
  | { readonly ok: false; readonly reason: string };

const HOUR_MS = 3_600_000;
const ABSOLUTE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):00(?::00)?(?:Z|\+00:00)?)?$/;
const RELATIVE = /^-(\d{1,6})([hdy])$/;

/**
 * Reads a `since`: a UTC date (`2016-01-01`), a whole UTC hour (`2016-01-01T06:00:00Z`), or a
 * span back from the start of the current hour (`-30d`, `-12h`, `-2y`), which moves with time.
 */
export function parseSince(text: string): ParsedSince {
  const relative = RELATIVE.exec(text.trim());
  if (relative) {
    const n = Number(relative[1]);
    const unit = relative[2];
    return {
      ok: true,
      at: (now) => {
        const hour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);
        if (unit === 'y') hour.setUTCFullYear(hour.getUTCFullYear() - n);
        else hour.setTime(hour.getTime() - n * (unit === 'd' ? 24 : 1) * HOUR_MS);
        return hour;
      },
    };
  }
  const absolute = ABSOLUTE.exec(text.trim());
  if (absolute) {
    const [year, month, day, hour] = absolute.slice(1).map((p) => Number(p ?? 0)) as [
      number,
      number,
      number,
      number,
    ];
    const date = new Date(Date.UTC(year, month - 1, day, hour));
    if (
      date.getUTCMonth() === month - 1 &&
      date.getUTCDate() === day &&
      date.getUTCHours() === hour
    ) {
      return { ok: true, at: () => date };
    }
  }
  return {
    ok: false,
    reason: `is not a date: write a UTC date (2016-01-01), a whole UTC hour (2016-01-01T06:00:00Z) or a span back from now (-30d, -12h, -2y)`,
  };
}
