import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { hourOfLine } from './canonical-form.js';
import type { HourLines } from './compare-rows.js';
import { hourIso } from './read-canonical-hours.js';

const HOUR_MS = 3_600_000;

/**
 * Every hour of [from, to) with its lines from a canonical rows file (`envdata certify
 * --rows-out`), read line by line. A line of an hour outside the range, or after a later hour's
 * line, is put in the hour it names or in the range's last hour, so the digest differs there.
 */
export async function* rowsFileHours(
  path: string,
  from: string,
  to: string,
): AsyncGenerator<HourLines> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  const end = Date.parse(to);
  let at = Date.parse(from);
  let current: string[] = [];
  for await (const line of lines) {
    const hour = Date.parse(hourOfLine(line));
    // A line of a later hour closes the hours before it; anything else stays in this hour.
    while (Number.isFinite(hour) && hour > at && at + HOUR_MS < end) {
      yield { hour: hourIso(at), lines: current };
      current = [];
      at += HOUR_MS;
    }
    current.push(line);
  }
  while (at < end) {
    yield { hour: hourIso(at), lines: current };
    current = [];
    at += HOUR_MS;
  }
}
