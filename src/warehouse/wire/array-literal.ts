/**
 * A Postgres array literal (`{1,2.5,NULL,"a \"b\""}`) passed as ONE text parameter and cast
 * server-side (`$1::real[]`): cheaper than node-postgres's own array formatting.
 */
export class ArrayLiteral {
  private text = '{';
  private first = true;

  /** A number as JS prints it (`1.5`, `1e-7`); `null` → NULL. */
  number(value: number | null): void {
    const element =
      value === null
        ? 'NULL'
        : Number.isFinite(value)
          ? String(value)
          : // 'NaN', 'Infinity': what node-postgres sent, quoted as it quoted them.
            `"${String(value)}"`;
    this.text += this.first ? element : `,${element}`;
    this.first = false;
  }

  /** An instant as epoch seconds, for `to_timestamp(…)`; exact to the microsecond. */
  instant(value: Date): void {
    this.number(value.getTime() / 1_000);
  }

  /** A string, always quoted, `\` and `"` escaped; `null` → NULL. */
  string(value: string | null): void {
    const element =
      value === null
        ? 'NULL'
        : `"${value.includes('\\') || value.includes('"') ? value.replace(/[\\"]/g, '\\$&') : value}"`;
    this.text += this.first ? element : `,${element}`;
    this.first = false;
  }

  /** The literal, e.g. `{1,2,NULL}`. */
  build(): string {
    return `${this.text}}`;
  }
}

/**
 * Instants as a `timestamptz[]` literal of ISO-8601 UTC text (`{2024-01-01T00:00:00.000Z,…}`,
 * nothing in it to quote), for `$1::timestamptz[]`: what node-postgres would send for an array
 * of Dates, without formatting each field by field in the local zone.
 */
export function instants(values: readonly (Date | null)[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    text +=
      (i === 0 ? '' : ',') + (value === null || value === undefined ? 'NULL' : value.toISOString());
  }
  return `${text}}`;
}
