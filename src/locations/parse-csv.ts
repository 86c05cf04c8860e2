/** One record of a CSV text: its fields and the line it starts on (1-based). */
export interface CsvRecord {
  readonly line: number;
  readonly fields: readonly string[];
}

/** The records of a CSV text, and what could not be read. */
export interface ParsedCsv {
  readonly records: readonly CsvRecord[];
  /** `line 7: the quoted field opened here is never closed`. */
  readonly problems: readonly string[];
}

/**
 * Reads CSV as RFC 4180 writes it: comma-separated fields, `"quoted"` when they hold commas,
 * quotes (doubled: `""`) or line breaks; LF or CRLF line ends; a leading byte-order mark is
 * dropped. Blank lines are skipped. Fields are returned as written (not trimmed).
 */
export function parseCsv(text: string): ParsedCsv {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  const problems: string[] = [];
  let line = 1;
  let i = 0;
  while (i < input.length) {
    const start = line;
    const fields: string[] = [];
    let field = '';
    let quotedAt: number | undefined;
    let endOfRecord = false;
    while (i < input.length && !endOfRecord) {
      const ch = input[i]!;
      if (quotedAt !== undefined) {
        if (ch === '"' && input[i + 1] === '"') {
          field += '"';
          i += 2;
        } else if (ch === '"') {
          quotedAt = undefined;
          i += 1;
        } else {
          if (ch === '\n') line += 1;
          field += ch;
          i += 1;
        }
      } else if (ch === '"' && field.trim() === '') {
        quotedAt = line;
        field = '';
        i += 1;
      } else if (ch === ',') {
        fields.push(field);
        field = '';
        i += 1;
      } else if (ch === '\n' || (ch === '\r' && input[i + 1] === '\n')) {
        i += ch === '\r' ? 2 : 1;
        line += 1;
        endOfRecord = true;
      } else {
        field += ch;
        i += 1;
      }
    }
    if (quotedAt !== undefined) {
      problems.push(`line ${quotedAt}: the quoted field opened here is never closed`);
      break;
    }
    fields.push(field);
    if (fields.length === 1 && fields[0]!.trim() === '') continue;
    records.push({ line: start, fields });
  }
  return { records, problems };
}
