import type { DeclaredPlan } from './declared-plan.js';

/** What an approved plan promised: the same locations changed and the same chunks planned. */
export function summaryOf(plan: DeclaredPlan): string {
  return JSON.stringify([
    plan.add.map((w) => w.input.name),
    plan.retire.map((l) => l.locationId),
    plan.restore.map((l) => l.locationId),
    plan.estimate.chunks,
    plan.estimate.calls,
  ]);
}
