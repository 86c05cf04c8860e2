import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatProgressBar } from '../../src/cli/format-progress-bar.js';
import { StatusLine } from '../../src/cli/status-line.js';

/** A terminal `columns` wide that keeps every write. */
function terminal(columns = 80) {
  const writes: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        writes.push(chunk.toString('utf8'));
        callback();
      },
    }),
    { isTTY: true, columns },
  );
  return { stream, writes };
}

describe('StatusLine', () => {
  it('writes log lines as they are while no live line is shown', () => {
    const { stream, writes } = terminal();
    new StatusLine(stream).write('[12:00:00.000] INFO (1): hello\n');
    expect(writes).toEqual(['[12:00:00.000] INFO (1): hello\n']);
  });

  it('erases the live line, writes the log line in its place and draws the live line below it, in one write', () => {
    const { stream, writes } = terminal();
    const line = new StatusLine(stream);
    line.show('run 1 50%');
    writes.length = 0;
    line.write('[12:00:00.000] WARN (1): will retry\n');
    expect(writes).toEqual(['\r\x1b[K[12:00:00.000] WARN (1): will retry\nrun 1 50%\x1b[K']);
  });

  it('ends a log line that lacks its newline, so the live line keeps a line of its own', () => {
    const { stream, writes } = terminal();
    const line = new StatusLine(stream);
    line.show('bar');
    writes.length = 0;
    line.write('no newline');
    expect(writes).toEqual(['\r\x1b[Kno newline\nbar\x1b[K']);
  });

  it('redraws from the start of the line, clipped one column short of the terminal, cursor hidden once', () => {
    const { stream, writes } = terminal(10);
    const line = new StatusLine(stream);
    line.show('0123456789abc');
    line.show('short');
    expect(writes).toEqual(['\x1b[?25l', '\r012345678\x1b[K', '\rshort\x1b[K']);
  });

  it('on release leaves the last live line in place, moves below it and shows the cursor', () => {
    const { stream, writes } = terminal();
    const line = new StatusLine(stream);
    line.show('done');
    writes.length = 0;
    line.release();
    line.write('after\n');
    line.release();
    expect(writes).toEqual(['\n\x1b[?25h', 'after\n']);
  });
});

describe('formatProgressBar', () => {
  it('shows chunks, rows, calls/s and the time left', () => {
    expect(
      formatProgressBar({
        runId: 12,
        done: 40,
        failed: 0,
        total: 200,
        rows: 9120,
        callsPerSecond: 19.75,
        etaMs: 8_000,
      }),
    ).toBe(
      `run 12 ${'\u2588'.repeat(8)}${'\u2591'.repeat(32)} 20% | 40/200 chunks | 9120 rows | 19.8 calls/s | ETA 8 s`,
    );
  });

  it('an empty plan is complete; an unknown time left is a dash, never "0 s"', () => {
    const text = formatProgressBar({
      runId: 1,
      done: 0,
      failed: 0,
      total: 0,
      rows: 0,
      callsPerSecond: 0,
      etaMs: undefined,
    });
    expect(text).toMatch(/ 100% \| 0\/0 chunks \| 0 rows \| 0\.0 calls\/s \| ETA —$/);
  });

  it('a failed chunk is finished but not done: a run whose chunks all failed is at 0 %', () => {
    const text = formatProgressBar({
      runId: 3,
      done: 0,
      failed: 3,
      total: 3,
      rows: 0,
      callsPerSecond: 0,
      etaMs: undefined,
    });
    expect(text).toBe(
      `run 3 ${'\u2591'.repeat(40)} 0% | 0/3 chunks, 3 failed | 0 rows | 0.0 calls/s | ETA —`,
    );
  });
});
