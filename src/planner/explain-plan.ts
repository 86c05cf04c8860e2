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
  /**
   * Which part of a larger plan the request is, named beside each dataset in its notes
   * (`pollen (group alps, since -1y): …`): a declared file plans a group with a `since` of its
   * own apart from the other locations.
   */
  readonly scope?: string;
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
    const named = request.scope === undefined ? dataset : `${dataset} (${request.scope})`;
    if (request.to <= start) {
      notes.push(
        `${named}: nothing to fetch before ${day(start)} UTC, where the service's ${dataset} history starts`,
      );
    } else if (request.from < start) {
      notes.push(
        `${named}: clipped to ${day(start)} UTC, where the service's ${dataset} history starts`,
      );
    } else if (!gaps.some((g) => g.dataset === dataset)) {
      notes.push(`${named}: nothing to do — the ledger holds all of it`);
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
