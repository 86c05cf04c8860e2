import type { QuotaHold } from './quota-gate.js';

/**
 * The reason a run waits for `hold`, as `status` shows it and alerts name it: `quota (day)`,
 * `budget (month)`, and `quota (day) refused by the service` when the service refused the window
 * before envdata's own cap (its own state: raising ENVDATA_QUOTA cannot help it).
 */
export function quotaHoldReason(hold: QuotaHold): string {
  const reason = `${hold.by} (${hold.window})`;
  return hold.refusedByService ? `${reason} refused by the service` : reason;
}
