/** Erase from the cursor to the end of the line. */
const ERASE_RIGHT = '\x1b[K';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

/** A terminal: standard error when it is one. */
export type TerminalStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/**
 * Standard error on a terminal, shared by log lines and one live line at the bottom (the
 * progress bar of `--wait`). Log lines are written through `write` (the logger's destination):
 * while a live line is shown, each one erases it, takes its place, and the live line is drawn
 * again below it, in one write. Neither overwrites the other, and every log line is whole.
 *
 * The live line is drawn from the start of its line with `\r`, never with a saved and restored
 * cursor position: a restore would jump back up over the log lines written meanwhile.
 */
export class StatusLine {
  private live: string | undefined;

  constructor(readonly stream: TerminalStream) {}

  /** Writes log text: above the live line when one is shown, else as is. */
  write(text: string): boolean {
    if (this.live === undefined) return this.stream.write(text);
    // The live line starts a line of its own: a log line must end its own.
    const line = text.endsWith('\n') ? text : `${text}\n`;
    return this.stream.write(`\r${ERASE_RIGHT}${line}${this.live}${ERASE_RIGHT}`);
  }

  /** Draws `text` as the live line, in place of the previous one; clipped to the terminal. */
  show(text: string): void {
    // One column short of the width: a line that fills it would wrap on some terminals.
    const width = Math.max(1, (this.stream.columns ?? 80) - 1);
    const clipped = [...text].slice(0, width).join('');
    if (this.live === undefined) this.stream.write(HIDE_CURSOR);
    this.live = clipped;
    this.stream.write(`\r${clipped}${ERASE_RIGHT}`);
  }

  /**
   * Stops keeping a live line: the one last drawn stays as an ordinary line, and what is written
   * next starts on the line below it.
   */
  release(): void {
    if (this.live === undefined) return;
    this.live = undefined;
    this.stream.write(`\n${SHOW_CURSOR}`);
  }
}
