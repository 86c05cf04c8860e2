import { createHash } from 'node:crypto';

/** How many hex characters of each hour's SHA-256 the certificate keeps (`hourDigests`). */
export const HOUR_DIGEST_HEX = 8;

/** What a range's canonical rows digest to. */
export interface RowsDigestResult {
  /** SHA-256 (hex) of every canonical line of the range, each followed by `\n`, in order. */
  readonly sha256: string;
  readonly rowCount: number;
  readonly hourCount: number;
  /**
   * For every hour of the range in order, the first 8 hex characters of the SHA-256 of that
   * hour's lines (each followed by `\n`; an hour without rows hashes the empty string,
   * `e3b0c442`), concatenated: 8 characters an hour, 70 KB a location-year.
   */
  readonly hourDigests: string;
}

/** Digests a range's canonical lines an hour at a time, in the range's hour order. */
export class RowsDigest {
  private readonly whole = createHash('sha256');
  private readonly hours: string[] = [];
  private rows = 0;

  /** Adds the next hour of the range with its lines (without newlines). */
  addHour(lines: readonly string[]): void {
    const hour = createHash('sha256');
    for (const line of lines) {
      const bytes = `${line}\n`;
      this.whole.update(bytes, 'utf8');
      hour.update(bytes, 'utf8');
    }
    this.rows += lines.length;
    this.hours.push(hour.digest('hex').slice(0, HOUR_DIGEST_HEX));
  }

  result(): RowsDigestResult {
    return {
      sha256: this.whole.digest('hex'),
      rowCount: this.rows,
      hourCount: this.hours.length,
      hourDigests: this.hours.join(''),
    };
  }
}
