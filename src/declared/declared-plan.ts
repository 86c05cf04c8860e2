import type { Location } from '../locations/location.js';
import type { PlanEstimate } from '../planner/plan-run.js';
import type { Dataset } from '../types.js';
import type { RunStatus } from '../warehouse/schema.js';
import type { WantedLocation } from './wanted-location.js';

/** The history missing of one dataset, between its `since` and the last complete hour. */
export interface DatasetHistory {
  readonly dataset: Dataset;
  /** The earliest `since` of the dataset (groups may differ), not before its history starts. */
  readonly from: Date;
  readonly to: Date;
  /** Location-hours missing, not left to an unfinished run. */
  readonly hours: number;
  readonly locations: number;
}

/** An unfinished run that still owes hours a declared file asks for (`DeclaredPlan.owed`). */
export interface OwedRun {
  readonly runId: number;
  readonly status: RunStatus;
}

/** What `envdata plan` shows and `envdata apply` does, in that order. */
export interface DeclaredPlan {
  readonly fileName: string;
  readonly digest: string;
  readonly add: readonly WantedLocation[];
  readonly retire: readonly Location[];
  readonly restore: readonly Location[];
  /** Declared locations registered and active as declared. */
  readonly unchanged: number;
  readonly history: readonly DatasetHistory[];
  /** Chunks, calls, rows and duration of the one run (`estimateGaps`, as `backfill --dry-run`). */
  readonly estimate: PlanEstimate;
  /** Why less is planned than declared: history starts, hours left to unfinished runs. */
  readonly notes: readonly string[];
  /** The run apply started; `undefined` for a plan, or when no history is missing. */
  readonly runId: number | undefined;
  /**
   * Unfinished runs (an earlier apply's, a backfill) that still owe hours the file declares,
   * by run id: left to them, not planned again, yet not in the warehouse. "No changes" is
   * true only when there is none.
   */
  readonly owed: readonly OwedRun[];
  /** Calls made to geocode places not registered yet. */
  readonly geocodeCalls: number;
  readonly warnings: readonly string[];
}

/** Whether applying the plan changes anything: "no changes" otherwise. */
export function hasChanges(plan: DeclaredPlan): boolean {
  return plan.add.length + plan.retire.length + plan.restore.length > 0 || plan.estimate.chunks > 0;
}
