import { describe, expect, it } from 'vitest';
import { configFromDefaults } from '../../src/config/load-config.js';
import { costOf, decimalString, formatMoney, parseDecimal } from '../../src/config/money.js';
import { planCost } from '../../src/planner/plan-cost.js';

const NOW = Date.parse('2026-11-10T12:00:00Z');

describe('money', () => {
  it('keeps amounts exact: 3 × 0.1 is 0.3, and a price below a cent shows its digits', () => {
    const tenth = { nanos: parseDecimal('0.1')!, currency: 'EUR' };
    expect(decimalString(costOf(3, tenth).nanos)).toBe('0.3');
    expect(formatMoney(costOf(3, tenth))).toBe('€0.30');
    const price = { nanos: parseDecimal('0.0004')!, currency: 'EUR' };
    expect(formatMoney(costOf(7, price))).toBe('€0.0028');
    expect(formatMoney(costOf(750_000, price))).toBe('€300.00');
    expect(formatMoney({ nanos: parseDecimal('1234.5')!, currency: 'USD' })).toBe('$1,234.50');
    expect(formatMoney({ nanos: parseDecimal('120')!, currency: 'JPY' })).toBe('¥120');
  });
});

describe('planCost', () => {
  it('costs a backfill and takes calls / (daily quota − reserve) days when the day binds', () => {
    const config = configFromDefaults({
      ENVDATA_QUOTA: '50000/day',
      ENVDATA_SYNC_RESERVE: '5000',
      ENVDATA_RATE_LIMIT: '20/s',
      ENVDATA_PRICE_PER_CALL: '0.0004 EUR',
    });
    const cost = planCost(135_000, 'other', config, [], NOW);
    expect(decimalString(cost.cost!.nanos)).toBe('54');
    expect(cost).toMatchObject({ days: 3, boundBy: 'quota (day)', callsPerDay: 45_000 });
    // The sync may take the reserve too.
    expect(planCost(100_000, 'sync', config, [], NOW)).toMatchObject({
      days: 2,
      boundBy: 'quota (day)',
      callsPerDay: 50_000,
    });
  });

  it('names the rate when it binds harder than the quota', () => {
    const config = configFromDefaults({ ENVDATA_QUOTA: '200000/day', ENVDATA_RATE_LIMIT: '1/s' });
    const cost = planCost(172_800, 'other', config, [], NOW);
    expect(cost.boundBy).toBe('rate');
    expect(cost.days).toBeCloseTo(2, 3);
    expect(cost.cost).toBeUndefined();
  });

  it('counts the month already spent against the budget, and the days to its reset when it binds', () => {
    const config = configFromDefaults({
      ENVDATA_RATE_LIMIT: '20/s',
      ENVDATA_PRICE_PER_CALL: '0.0004 EUR',
      ENVDATA_BUDGET: '300 EUR/month',
    });
    // 700,000 calls spent (€280): 50,000 more fit exactly, one more does not.
    const used = [{ window: 'month' as const, used: 700_000 }];
    const fits = planCost(50_000, 'other', config, used, NOW);
    expect(fits.overBudget).toBe(false);
    expect(decimalString(fits.budgetLeft!.nanos)).toBe('20');
    const over = planCost(50_001, 'other', config, used, NOW);
    expect(over.overBudget).toBe(true);
    expect(decimalString(over.spentThisMonth!.nanos)).toBe('280');
    expect(over.boundBy).toBe('budget (month)');
    // 20.5 days to 2026-12-01, and a sliver of the next month.
    expect(over.days).toBeGreaterThan(20.5);
    expect(over.days).toBeLessThan(20.6);
  });
});
