import type { Gap } from '../ledger/find-gaps.js';
import type { OpenRunPlan } from '../ledger/open-run-plans.js';
import type { Dataset } from '../types.js';
import type { RunStatus } from '../warehouse/schema.js';
import { countWindows } from '../windows/tile-windows.js';

const HOUR_MS = 3_600_000;

/** Hours of a new plan that an unfinished run will fetch already. */
export interface PlanOverlap {
  readonly runId: number;
  readonly status: RunStatus;
  readonly hours: number;
  /** The same by location and dataset, in the order of the gaps. */
  readonly pairs: readonly PairOverlap[];
}

/** Hours of one location and dataset left to another run, and the chunks they would have been. */
export interface PairOverlap {
  readonly locationId: number;
  readonly dataset: Dataset;
  readonly hours: number;
  /** Chunks of the new plan's window (`windowHours`) these hours would have taken. */
  readonly chunks: number;
}

/**
 * Takes out of `gaps` every hour an unfinished run will still fetch (`openRunPlans`), so no hour
 * is planned, and paid for, twice; says how many hours of the gaps each such run holds, by
 * location and dataset too, with the chunks of `windowHours` they would have taken.
 */
export function leaveOpenPlans(
  gaps: readonly Gap[],
  plans: readonly OpenRunPlan[],
  windowHours = 48,
): { gaps: Gap[]; overlaps: PlanOverlap[] } {
  const byKey = new Map<string, OpenRunPlan[]>();
  for (const plan of plans) {
    const key = `${plan.dataset}:${plan.locationId}`;
    const list = byKey.get(key);
    if (list) list.push(plan);
    else byKey.set(key, [plan]);
  }
  const held = new Map<number, { status: RunStatus; ms: number }>();
  const pairs = new Map<number, Map<string, PairOverlap>>();
  const left: Gap[] = [];
  for (const gap of gaps) {
    const open = byKey.get(`${gap.dataset}:${gap.locationId}`) ?? [];
    const taken: { from: number; to: number }[] = [];
    for (const plan of open) {
      for (const h of plan.hours) {
        const from = Math.max(h.from.getTime(), gap.from.getTime());
        const to = Math.min(h.to.getTime(), gap.to.getTime());
        if (from >= to) continue;
        taken.push({ from, to });
        const run = held.get(plan.runId) ?? { status: plan.status, ms: 0 };
        held.set(plan.runId, { status: run.status, ms: run.ms + (to - from) });
        const byPair = pairs.get(plan.runId) ?? new Map<string, PairOverlap>();
        pairs.set(plan.runId, byPair);
        const key = `${gap.locationId}:${gap.dataset}`;
        const pair = byPair.get(key) ?? {
          locationId: gap.locationId,
          dataset: gap.dataset,
          hours: 0,
          chunks: 0,
        };
        byPair.set(key, {
          ...pair,
          hours: pair.hours + (to - from) / HOUR_MS,
          chunks: pair.chunks + countWindows(new Date(from), new Date(to), windowHours),
        });
      }
    }
    taken.sort((a, b) => a.from - b.from);
    let cursor = gap.from.getTime();
    for (const t of taken) {
      if (t.from > cursor) left.push({ ...gap, from: new Date(cursor), to: new Date(t.from) });
      cursor = Math.max(cursor, t.to);
    }
    if (cursor < gap.to.getTime()) left.push({ ...gap, from: new Date(cursor) });
  }
  const overlaps = [...held].map(([runId, h]) => ({
    runId,
    status: h.status,
    hours: h.ms / HOUR_MS,
    pairs: [...(pairs.get(runId)?.values() ?? [])],
  }));
  return { gaps: left, overlaps };
}

/** Location/dataset pairs named one by one in the notes of one overlapping run; the rest counted. */
const PAIRS_NAMED = 5;

/**
 * What a backfill tells of the hours it left to another run (`leaveOpenPlans`): a line per
 * location and dataset (`7 chunk(s) of Berlin/weather are left to run 12 (paused)`, the first
 * `PAIRS_NAMED`), then the hours in all and what to do: resume a paused run, follow a running one.
 */
export function describeOverlap(
  overlap: PlanOverlap,
  nameOf: (locationId: number) => string = (id) => `location ${id}`,
): string[] {
  const run = `run ${overlap.runId} (${overlap.status})`;
  const lines = overlap.pairs
    .slice(0, PAIRS_NAMED)
    .map(
      (p) =>
        `${p.chunks} chunk(s) of ${nameOf(p.locationId)}/${p.dataset} are left to ${run} (${p.hours} hour(s))`,
    );
  if (overlap.pairs.length > PAIRS_NAMED) {
    lines.push(
      `… and ${overlap.pairs.length - PAIRS_NAMED} more location/dataset pair(s) left to ${run}`,
    );
  }
  const what = `${overlap.hours} hour(s) are already planned by ${run}`;
  lines.push(
    overlap.status === 'paused'
      ? `${what}: resume it with \`envdata resume ${overlap.runId}\``
      : `${what}: it fetches them, follow it with \`envdata status ${overlap.runId}\``,
  );
  return lines;
}
