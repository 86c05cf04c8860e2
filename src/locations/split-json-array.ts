/** One element of a top-level JSON array, as text, and its 0-based index. */
export interface JsonArrayElement {
  readonly index: number;
  readonly text: string;
}

type State = 'before' | 'elements' | 'after';

/**
 * Splits a JSON array that arrives in pieces (a file read as a stream) into the text of its
 * elements, for `JSON.parse` one by one: only the element being read is kept between pieces, so
 * memory does not grow with the file. It follows strings (with escapes) and nesting only as far
 * as needed to find where each element ends; the elements' own syntax is `JSON.parse`'s to check.
 *
 * What is not an array is noticed on the first character (`notArray`); the text of such a file is
 * kept (up to `maxElementChars`) so the caller can say whether it is JSON at all. A structural
 * problem, or an element longer than `maxElementChars`, stops the splitting (`problem`); it
 * quotes a little of the text where it is unless `quote` is false.
 */
export class JsonArraySplitter {
  /** Set when splitting stopped: the text is not a well-formed array of elements. */
  problem: string | undefined;
  /** Set when the first character is not `[`: what was read of the text. */
  notArray: string | undefined;
  private state: State = 'before';
  private buffer = '';
  /** Where the element being read starts in `buffer`; -1 between elements. */
  private elementStart = -1;
  /** How far `buffer` has been scanned. */
  private scanned = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private index = 0;
  /** After a comma, an element must follow. */
  private expectElement = false;

  constructor(
    private readonly options: { readonly maxElementChars?: number; readonly quote?: boolean } = {},
  ) {}

  /** Adds the next piece of text; returns the elements it completes. */
  push(text: string): JsonArrayElement[] {
    if (this.problem !== undefined) return [];
    if (this.notArray !== undefined) {
      this.keepNotArray(text);
      return [];
    }
    this.buffer += text;
    const elements = this.scan();
    this.compact();
    return elements;
  }

  /** Ends the text; sets `problem` when the array is not closed. */
  end(): void {
    if (this.problem !== undefined || this.notArray !== undefined) return;
    if (this.state === 'before') this.notArray = '';
    else if (this.state === 'elements')
      this.problem = 'the array is never closed (unexpected end of the file)';
  }

  private scan(): JsonArrayElement[] {
    const elements: JsonArrayElement[] = [];
    const b = this.buffer;
    let i = this.scanned;
    for (; i < b.length && this.problem === undefined; i += 1) {
      const ch = b[i]!;
      if (this.state === 'before') {
        if (isSpace(ch) || (ch === '\uFEFF' && i === 0)) continue;
        if (ch !== '[') {
          this.notArray = '';
          this.keepNotArray(b.slice(i));
          this.buffer = '';
          this.scanned = 0;
          return [];
        }
        this.state = 'elements';
        continue;
      }
      if (this.state === 'after') {
        if (!isSpace(ch)) {
          const shown = this.options.quote === false ? '' : `: ${snippet(b, i)}`;
          this.problem = `unexpected text after the closing "]"${shown}`;
        }
        continue;
      }
      if (this.elementStart >= 0) {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (ch === '\\') this.escaped = true;
          else if (ch === '"') this.inString = false;
          continue;
        }
        if (ch === '"') this.inString = true;
        else if (ch === '{' || ch === '[') this.depth += 1;
        else if (ch === '}' || ch === ']') {
          if (this.depth > 0) this.depth -= 1;
          else {
            elements.push(this.take(i));
            this.state = 'after';
          }
        } else if (ch === ',' && this.depth === 0) {
          elements.push(this.take(i));
          this.expectElement = true;
        }
        continue;
      }
      // Between elements.
      if (isSpace(ch)) continue;
      if (ch === ']') {
        if (this.expectElement)
          this.problem = `a "," is followed by "]" (after index ${this.index - 1})`;
        this.state = 'after';
      } else if (ch === ',') {
        this.problem = `a "," where index ${this.index} should be`;
      } else {
        this.elementStart = i;
        this.expectElement = false;
        if (ch === '"') this.inString = true;
        else if (ch === '{' || ch === '[') this.depth = 1;
      }
    }
    this.scanned = i;
    const max = this.options.maxElementChars;
    if (this.problem === undefined && max !== undefined && this.elementStart >= 0) {
      if (this.scanned - this.elementStart > max) {
        this.problem = `index ${this.index} is longer than ${max} characters; this is not a location file`;
      }
    }
    return elements;
  }

  /** The element that ends before `end`. */
  private take(end: number): JsonArrayElement {
    const text = this.buffer.slice(this.elementStart, end);
    this.elementStart = -1;
    this.depth = 0;
    return { index: this.index++, text };
  }

  /** Drops what was scanned and is no longer needed. */
  private compact(): void {
    const keepFrom = this.elementStart >= 0 ? this.elementStart : this.scanned;
    if (keepFrom === 0) return;
    this.buffer = this.buffer.slice(keepFrom);
    this.scanned -= keepFrom;
    if (this.elementStart >= 0) this.elementStart = 0;
  }

  /** Whether as much of a text that is not an array was kept as will be (reading on is moot). */
  get notArrayKept(): boolean {
    const max = this.options.maxElementChars;
    return this.notArray !== undefined && max !== undefined && this.notArray.length >= max;
  }

  private keepNotArray(text: string): void {
    const max = this.options.maxElementChars ?? Number.POSITIVE_INFINITY;
    const room = max - (this.notArray ?? '').length;
    if (room > 0) this.notArray = (this.notArray ?? '') + text.slice(0, room);
  }
}

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t';
}

function snippet(text: string, at: number): string {
  return JSON.stringify(text.slice(at, at + 20));
}
