import type { CompletenessStatement } from './completeness-statement.js';
import { hourIso } from './read-canonical-hours.js';
import { HOUR_DIGEST_HEX, RowsDigest } from './rows-digest.js';

/** An hour of the rows checked: its canonical lines. */
export interface HourLines {
  readonly hour: string;
  readonly lines: readonly string[];
}

/** The outcome of checking rows against a certificate's subject. */
export type RowsComparison =
  | { readonly same: true; readonly rowCount: number }
  | {
      readonly same: false;
      /** The first hour whose lines differ; `undefined` when no single hour can be named. */
      readonly hour: string | undefined;
      readonly rowCount: number;
    };

const HOUR_MS = 3_600_000;

/**
 * Digests the rows of every hour of the certificate's range (in order) and compares them with
 * its subject: the same digest, or the first hour whose 8-hex-character hour digest differs
 * (`hourDigests`). Should every hour agree while the whole does not (two hours' prefixes
 * colliding, one chance in 4 billion), no hour is named.
 */
export async function compareRows(
  statement: CompletenessStatement,
  hours: AsyncIterable<HourLines>,
): Promise<RowsComparison> {
  const digest = new RowsDigest();
  for await (const hour of hours) digest.addHour(hour.lines);
  const now = digest.result();
  if (now.sha256 === statement.subject[0].digest.sha256)
    return { same: true, rowCount: now.rowCount };
  const was = statement.predicate.hourDigests;
  const from = Date.parse(statement.predicate.from);
  for (let i = 0; i * HOUR_DIGEST_HEX < Math.max(was.length, now.hourDigests.length); i++) {
    const at = i * HOUR_DIGEST_HEX;
    if (was.slice(at, at + HOUR_DIGEST_HEX) !== now.hourDigests.slice(at, at + HOUR_DIGEST_HEX)) {
      return { same: false, hour: hourIso(from + i * HOUR_MS), rowCount: now.rowCount };
    }
  }
  return { same: false, hour: undefined, rowCount: now.rowCount };
}
