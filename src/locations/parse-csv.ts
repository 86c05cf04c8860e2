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
  const splitter = new CsvSplitter();
  const records = [...splitter.push(text), ...splitter.end()];
  return { records, problems: splitter.problems };
}

/** What one pass over the buffer found: a record, a skipped blank line, or "need more text". */
type Step =
  | {
      readonly kind: 'record';
      readonly fields: string[];
      readonly next: number;
      readonly lines: number;
    }
  | { readonly kind: 'incomplete' }
  | { readonly kind: 'unclosed'; readonly quotedAtLine: number };

/**
 * Splits CSV text that arrives in pieces (a file read as a stream) into records, with the rules
 * of `parseCsv`. Only the record being read is kept between pieces, so memory does not grow with
 * the file; a record longer than `maxRecordChars` stops the splitting with a problem (a file
 * that is not a location file, or a quote never closed, should not be read whole).
 *
 * @example
 * const splitter = new CsvSplitter();
 * for await (const piece of stream) for (const record of splitter.push(piece)) use(record);
 * for (const record of splitter.end()) use(record);
 */
export class CsvSplitter {
  readonly problems: string[] = [];
  private buffer = '';
  private line = 1;
  private started = false;
  private stopped = false;

  constructor(private readonly options: { readonly maxRecordChars?: number } = {}) {}

  /** Whether splitting stopped on a problem; later text is ignored. */
  get failed(): boolean {
    return this.stopped;
  }

  /** Adds the next piece of text; returns the records it completes. */
  push(text: string): CsvRecord[] {
    if (this.stopped || text === '') return [];
    if (!this.started) {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    this.buffer = this.buffer === '' ? text : this.buffer + text;
    return this.split(false);
  }

  /** Ends the text; returns the last records. */
  end(): CsvRecord[] {
    if (this.stopped) return [];
    const records = this.split(true);
    this.buffer = '';
    return records;
  }

  private split(final: boolean): CsvRecord[] {
    const records: CsvRecord[] = [];
    let start = 0;
    while (start < this.buffer.length && !this.stopped) {
      const step = readRecord(this.buffer, start, this.line, final);
      if (step.kind === 'incomplete') break;
      if (step.kind === 'unclosed') {
        this.problems.push(
          `line ${step.quotedAtLine}: the quoted field opened here is never closed`,
        );
        this.stopped = true;
        break;
      }
      const first = this.line;
      this.line += step.lines;
      start = step.next;
      if (step.fields.length === 1 && step.fields[0]!.trim() === '') continue;
      records.push({ line: first, fields: step.fields });
    }
    this.buffer = this.buffer.slice(start);
    const max = this.options.maxRecordChars;
    if (!this.stopped && max !== undefined && this.buffer.length > max) {
      this.problems.push(
        `line ${this.line}: a row longer than ${max} characters; this is not a location file (or a quote is never closed)`,
      );
      this.stopped = true;
      this.buffer = '';
    }
    return records;
  }
}

/**
 * Reads the record starting at `start`. Without `final`, a record the text ends in (no line end
 * yet, or a quote or `\r` whose meaning depends on the next character) is `incomplete`.
 */
function readRecord(input: string, start: number, line: number, final: boolean): Step {
  const fields: string[] = [];
  let field = '';
  let quotedAt: number | undefined;
  let lines = 0;
  let i = start;
  while (i < input.length) {
    const ch = input[i]!;
    if (quotedAt !== undefined) {
      if (ch === '"') {
        if (i + 1 >= input.length && !final) return { kind: 'incomplete' };
        if (input[i + 1] === '"') {
          field += '"';
          i += 2;
        } else {
          quotedAt = undefined;
          i += 1;
        }
      } else {
        if (ch === '\n') lines += 1;
        field += ch;
        i += 1;
      }
    } else if (ch === '"' && field.trim() === '') {
      quotedAt = line + lines;
      field = '';
      i += 1;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
      i += 1;
    } else if (ch === '\n') {
      fields.push(field);
      return { kind: 'record', fields, next: i + 1, lines: lines + 1 };
    } else if (ch === '\r') {
      if (i + 1 >= input.length && !final) return { kind: 'incomplete' };
      if (input[i + 1] === '\n') {
        fields.push(field);
        return { kind: 'record', fields, next: i + 2, lines: lines + 1 };
      }
      field += ch;
      i += 1;
    } else {
      field += ch;
      i += 1;
    }
  }
  if (!final) return { kind: 'incomplete' };
  if (quotedAt !== undefined) return { kind: 'unclosed', quotedAtLine: quotedAt };
  fields.push(field);
  return { kind: 'record', fields, next: i, lines };
}
