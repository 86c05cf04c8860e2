import type { Config } from '../config/config.js';
import { costOf, formatMoney } from '../config/money.js';
import type { QuotaUsage } from '../admission/quota-usage.js';
import { SPENT_SINCE_NOTE } from './spent-since-note.js';

const utc = (ms: number) => {
  const iso = new Date(ms).toISOString();
  // A reset within the minute (short test days) shows its seconds too.
  return `${iso.slice(0, 10)} ${iso.slice(11, iso.slice(17, 19) === '00' ? 16 : 19)} UTC`;
};

/**
 * `status`'s lines on the quota: per configured window the calls used against its limit, the
 * sync's reserve, the cost when a price is set, the budget when one is, and the reset:
 * `day    1200 of 50000 calls (5000 kept for the sync), €0.48, resets 2026-11-27 00:00 UTC`; a
 * window the service itself refused says so beside envdata's real count. With a price, a last
 * line says since when "spent" counts (`SPENT_SINCE_NOTE`).
 * Nothing without a quota or budget.
 */
export function formatQuotaUsage(
  usage: readonly QuotaUsage[] | null,
  config: Pick<Config, 'quota' | 'money'>,
): string[] {
  const { price, budget } = config.money;
  if (usage === null) {
    const configured =
      config.quota.perDay !== undefined ||
      config.quota.perMonth !== undefined ||
      budget !== undefined;
    return configured ? ['quota     not readable: the warehouse does not answer'] : [];
  }
  if (usage.length === 0) return [];
  const lines = [`quota     calendar of ${config.quota.timeZone} (ENVDATA_QUOTA_TIMEZONE)`];
  for (const u of usage) {
    const parts = [`${u.used} of ${u.limit} calls`];
    if (u.reserve > 0) parts[0] += ` (${u.reserve} kept for the sync)`;
    if (u.limitedBy === 'budget') parts[0] += ' (the budget’s calls)';
    if (u.refusedByService) {
      parts.push(
        'refused by the service (quota exceeded) — check the plan with the provider or other users of the key',
      );
    }
    if (price) parts.push(`${formatMoney(costOf(u.used, price))} spent`);
    if (u.window === 'month' && budget) parts.push(`budget ${formatMoney(budget.amount)}`);
    parts.push(`resets ${utc(u.resetsAtMs)}`);
    lines.push(`  ${u.window.padEnd(6)} ${parts.join(', ')}`);
  }
  if (price) lines.push(`  (${SPENT_SINCE_NOTE})`);
  return lines;
}
