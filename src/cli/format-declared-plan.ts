import type { RateLimitRule } from '../config/rate-limit.js';
import type { DeclaredPlan } from '../declared/declared-plan.js';
import type { PlanCost } from '../planner/plan-cost.js';
import { formatPlanCost } from './format-plan-cost.js';

const hour = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * `envdata plan` for people: the locations apply adds, retires and restores, then per dataset
 * the hours missing and the one run that fetches them, with its cost and duration.
 */
export function formatDeclaredPlan(
  plan: DeclaredPlan,
  cost: PlanCost,
  rules: readonly RateLimitRule[],
): string[] {
  const lines = [
    `locations: ${plan.add.length} to add, ${plan.retire.length} to retire, ${plan.restore.length} to restore, ${plan.unchanged} unchanged`,
  ];
  for (const w of plan.add) {
    const { name, lat, lng, countryCode } = w.input;
    lines.push(`  + ${name}: ${lat}, ${lng} ${countryCode ?? '??'} (${w.ref})`);
  }
  for (const l of plan.retire) {
    lines.push(`  - ${l.name} (location ${l.locationId}): retired, its facts stay queryable`);
  }
  for (const l of plan.restore)
    lines.push(`  ↺ ${l.name} (location ${l.locationId}): active again`);
  for (const h of plan.history) {
    lines.push(
      `${h.dataset}: ${h.hours} hour(s) missing for ${h.locations} location(s) between ${hour(h.from)} and ${hour(h.to)}`,
    );
  }
  const e = plan.estimate;
  if (e.chunks > 0) {
    lines.push(
      `one backfill run: ${e.chunks} chunk(s) = ${e.calls} API call(s), ~${e.expectedRows} rows`,
    );
    for (const line of formatPlanCost(cost, rules)) lines.push(`  ${line}`);
  }
  for (const note of plan.notes) lines.push(`  ${note}`);
  return lines;
}
