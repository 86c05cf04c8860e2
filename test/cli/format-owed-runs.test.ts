import { describe, expect, it } from 'vitest';
import { formatOwedRuns } from '../../src/cli/format-owed-runs.js';
import type { RunProgress } from '../../src/ledger/run-progress.js';

/** The fields of a run's progress the sentence reads. */
const run = (p: Pick<RunProgress, 'runId' | 'status' | 'done' | 'total' | 'failed'>) =>
  ({ kind: 'backfill', ...p }) as RunProgress;

describe('formatOwedRuns', () => {
  it('names each run, its chunks done of all, and what the workers do', () => {
    const running = run({ runId: 7, status: 'running', done: 673, total: 845, failed: 0 });
    const paused = run({ runId: 9, status: 'paused', done: 2, total: 40, failed: 1 });
    expect(formatOwedRuns({ runs: [running], workers: 0 })).toBe(
      '1 run is still owed: run 7 backfill 673 of 845 chunks, no worker connected — start one: envdata worker',
    );
    expect(formatOwedRuns({ runs: [running, paused], workers: 2 })).toBe(
      '2 runs are still owed: run 7 backfill 673 of 845 chunks; ' +
        'run 9 backfill paused at 2 of 40 chunks, 1 failed (continue: envdata resume 9), 2 worker(s) connected',
    );
    expect(formatOwedRuns({ runs: [running], workers: undefined })).toBe(
      '1 run is still owed: run 7 backfill 673 of 845 chunks, workers unknown (the queue did not answer)',
    );
    expect(formatOwedRuns({ runs: [running], workers: 0 }, true)).toBe(
      '1 run is still owed: run 7 backfill 673 of 845 chunks; worked here to the end (--wait)',
    );
    // Only paused runs: no worker would move them, so none is asked for.
    expect(formatOwedRuns({ runs: [paused], workers: 0 })).toBe(
      '1 run is still owed: run 9 backfill paused at 2 of 40 chunks, 1 failed (continue: envdata resume 9)',
    );
  });
});
