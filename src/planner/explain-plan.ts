import type { Gap } from '../ledger/find-gaps.js';
import { datasetDefinition } from '../datasets/registry.js';
import type { Dataset } from '../types.js';
import { lastCompleteHourEnd } from '../windows/tile-windows.js';

export interface PlanNoteRequest {
  readonly datasets: readonly Dataset[];
  readonly from: Date;
  readonly to: Date;
  readonly windowHours: number;
  readonly now?: Date;
}

/** The window the service is known to accept per history request (trial plans: 48 h). */
export const KNOWN_ACCEPTED_WINDOW_HOURS = 48;

const day = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/**
 * Why a plan is smaller than the range asked for, in the operator's words: a range in the future,
 * before a dataset's history, clipped at either end, or already held by the ledger. Also a window
 * longer than the service is known to accept (the estimate then counts at that window, since
 * longer requests are split when refused).
 */
export function explainPlan(request: PlanNoteRequest, gaps: readonly Gap[]): string[] {
  const notes: string[] = [];
  const end = lastCompleteHourEnd(request.now);
  if (request.from >= end) {
    notes.push(
      `nothing to fetch: the range starts after the last complete hour (${day(end)} UTC) — history is only what has happened`,
    );
    return notes;
  }
  if (request.to > end)
    notes.push(`the range is clipped at the last complete hour, ${day(end)} UTC`);
  for (const dataset of request.datasets) {
    const start = datasetDefinition(dataset).historyStart;
    if (request.to <= start) {
      notes.push(
        `${dataset}: nothing to fetch before ${day(start)} UTC, where the service's ${dataset} history starts`,
      );
    } else if (request.from < start) {
      notes.push(
        `${dataset}: clipped to ${day(start)} UTC, where the service's ${dataset} history starts`,
      );
    } else if (!gaps.some((g) => g.dataset === dataset)) {
      notes.push(`${dataset}: nothing to do — the ledger holds all of it`);
    }
  }
  if (request.windowHours > KNOWN_ACCEPTED_WINDOW_HOURS) {
    notes.push(
      `--window ${request.windowHours}h is longer than the ${KNOWN_ACCEPTED_WINDOW_HOURS} h the service is known to accept; ` +
        `a longer request it refuses is split, so calls are estimated at ${KNOWN_ACCEPTED_WINDOW_HOURS} h`,
    );
  }
  return notes;
}
