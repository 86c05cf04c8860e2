import { formatDuration } from '../planner/estimate-plan.js';

/** What the progress bar of a run shows. */
export interface ProgressBarState {
  readonly runId: number;
  /** Chunks done: what the bar and the percentage count. */
  readonly done: number;
  /** Chunks failed: finished, but not done, so never in the percentage (a failed run is not at 100 %). */
  readonly failed: number;
  /** Chunks dropped by `envdata cancel`, never to be fetched (`RunProgress.dropped`). */
  readonly dropped?: number;
  readonly total: number;
  readonly rows: number;
  readonly callsPerSecond: number;
  /** Time left at the pace so far; `undefined` while there is no pace yet or nothing is left. */
  readonly etaMs: number | undefined;
}

const BAR_WIDTH = 40;

/**
 * One line: `run 12 ████████░░░░ 20% | 40/200 chunks | 9120 rows | 19.8 calls/s | ETA 8 s`, with
 * `40/200 chunks, 3 failed` once some failed, `, 5 dropped (cancelled)` once cancelled.
 */
export function formatProgressBar(state: ProgressBarState): string {
  const fraction = state.total === 0 ? 1 : Math.min(1, state.done / state.total);
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = '\u2588'.repeat(filled) + '\u2591'.repeat(BAR_WIDTH - filled);
  const eta = state.etaMs === undefined ? '—' : formatDuration(state.etaMs);
  return (
    `run ${state.runId} ${bar} ${Math.floor(fraction * 100)}% | ${state.done}/${state.total} chunks` +
    (state.failed > 0 ? `, ${state.failed} failed` : '') +
    (state.dropped ? `, ${state.dropped} dropped (cancelled)` : '') +
    ' | ' +
    `${state.rows} rows | ${state.callsPerSecond.toFixed(1)} calls/s | ETA ${eta}`
  );
}
