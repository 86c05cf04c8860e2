import type { Gap } from '../ledger/find-gaps.js';
import type { OpenRunPlan } from '../ledger/open-run-plans.js';
import type { RunStatus } from '../warehouse/schema.js';

const HOUR_MS = 3_600_000;

/** Hours of a new plan that an unfinished run will fetch already. */
export interface PlanOverlap {
  readonly runId: number;
  readonly status: RunStatus;
  readonly hours: number;
}

/**
 * Takes out of `gaps` every hour an unfinished run will still fetch (`openRunPlans`), so no hour
 * is planned, and paid for, twice; says how many hours of the gaps each such run holds.
 */
export function leaveOpenPlans(
  gaps: readonly Gap[],
  plans: readonly OpenRunPlan[],
): { gaps: Gap[]; overlaps: PlanOverlap[] } {
  const byKey = new Map<string, OpenRunPlan[]>();
  for (const plan of plans) {
    const key = `${plan.dataset}:${plan.locationId}`;
    const list = byKey.get(key);
    if (list) list.push(plan);
    else byKey.set(key, [plan]);
  }
  const held = new Map<number, { status: RunStatus; ms: number }>();
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
  }));
  return { gaps: left, overlaps };
}

/** What a backfill tells of the hours it left to another run (`leaveOpenPlans`). */
export function describeOverlap(overlap: PlanOverlap): string {
  const what = `${overlap.hours} hour(s) are already planned by run ${overlap.runId} (${overlap.status})`;
  return overlap.status === 'paused'
    ? `${what}: resume it with \`envdata resume ${overlap.runId}\``
    : `${what}: it fetches them, follow it with \`envdata status ${overlap.runId}\``;
}
