import { describe, expect, it } from 'vitest';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { runInTerminal } from '../harness/run-in-terminal.js';
import { needsTools } from '../harness/system-tools.js';

// Three answers in ten are 503: workers log "will retry" all through the run, while the bar is
// shown. 2 datasets × 2 locations × 8 windows = 32 chunks at 20 calls/s: about two seconds.
const fx = useBackfillFixture({ faults: 'history:error=503@30%' });
const RANGE = ['--dataset', 'all', '--from', '2024-06-02', '--to', '2024-06-18'];

/** The start of a pretty log line: `[17:59:31.084] WARN (18532): will retry`. */
const LOG_LINE = /\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR) \(\d+\): /;
const BAR_TEXT = /chunks \||\| ETA /;
/** Colours, erasing, cursor moves: what the terminal interprets rather than shows. */
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[[0-9;?]*[A-Za-z]/g;

describe('envdata backfill --wait on a terminal', needsTools('tmux'), () => {
  it('keeps the progress bar below the log lines: no line holds both, every log line is whole', async () => {
    const result = await runInTerminal(
      ['backfill', ...RANGE, '--wait'],
      fx.cliEnv({
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'auto',
        ENVDATA_RATE_LIMIT: '20/s',
        ENVDATA_RETRY_BASE_MS: '20',
      }),
    );
    const shown = result.screen.join('\n');
    expect(result.code, shown).toBe(0);

    // Log lines were written while the bar was on the screen: between its first drawing and
    // the end of the run.
    const raw = result.raw.replace(ESCAPE, '');
    const firstBar = raw.search(BAR_TEXT);
    const summary = raw.indexOf('(backfill) done');
    expect(firstBar, raw).toBeGreaterThanOrEqual(0);
    const during = raw.slice(firstBar, summary).match(new RegExp(LOG_LINE, 'g')) ?? [];
    expect(during.length, raw).toBeGreaterThan(0);

    // What a person sees: log lines and the bar on lines of their own.
    for (const line of result.screen) {
      expect(BAR_TEXT.test(line) && LOG_LINE.test(line), `mixed line: ${line}`).toBe(false);
    }
    const logLines = result.screen.filter((line) => LOG_LINE.test(line));
    expect(logLines.length).toBeGreaterThanOrEqual(during.length);
    for (const line of logLines) {
      expect(line).toMatch(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] (WARN|INFO) \(\d+\): (will retry|run finished)$/,
      );
    }
    // Their fields follow them, indented, never cut by the bar.
    const fields = result.screen.filter((line) => /^ {4}\w+: /.test(line));
    for (const line of fields)
      expect(line).toMatch(/^ {4}(component|chunkId|code|attempts|runId|status): \S+$/);

    // The bar's last state stays, once, above the summary.
    const bars = result.screen.filter((line) => BAR_TEXT.test(line));
    expect(bars).toHaveLength(1);
    expect(bars[0]).toMatch(
      /^run 1 \u2588{40} 100% \| 32\/32 chunks \| \d+ rows \| [\d.]+ calls\/s \| ETA —$/,
    );
    const barAt = result.screen.indexOf(bars[0]!);
    expect(result.screen[barAt + 1]).toMatch(
      /^run 1 \(backfill\) done: 32\/32 chunks done, 0 failed/,
    );
  });
});
