import { describe, expect, it } from 'vitest';
import { admissionStores } from '../../src/admission/admission-stores.js';
import { configFromDefaults } from '../../src/config/load-config.js';
import { QuotaGate } from '../../src/admission/quota-gate.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';

// The quota's counters are rows of envdata.quota_usage, on either queue backend.
const fx = useBackfillFixture();

/** A gate on its own app (its own connections: another host), days of one real day. */
function gate(env: Record<string, string>): QuotaGate {
  const app = fx.newApp(env);
  return new QuotaGate(admissionStores(app.queues).quota, configFromDefaults(env).quota);
}

describe('the quota gate', () => {
  it('counts every call of many takers at once on several hosts, none refused by a deadlock', async () => {
    const now = Date.parse('2002-03-04T10:00:00Z') + Math.floor(Math.random() * 1e6) * 86_400_000;
    const env = { ENVDATA_QUOTA: '100000/day,1000000/month', ENVDATA_SYNC_RESERVE: '0' };
    const hosts = [gate(env), gate(env), gate(env)];
    // 3 hosts × 16 takers × 10 takes, each taker one after the other: the day's and the month's
    // rows are locked in one order by all, so two takers never hold one each.
    await Promise.all(
      Array.from({ length: 48 }, async (_, i) => {
        for (let k = 0; k < 10; k += 1) {
          expect(await hosts[i % 3]!.take('other', now)).toBeUndefined();
        }
      }),
    );
    expect((await hosts[0]!.usage(now)).map((u) => u.used)).toEqual([480, 480]);
  });

  it('never lets two hosts take past the line: the reserve is the sync’s alone, and the day ends for all', async () => {
    // A quota day no other test of this file counts in: a day far in the past of its own.
    const now = Date.parse('2001-02-03T10:00:00Z') + Math.floor(Math.random() * 1e6) * 86_400_000;
    const env = { ENVDATA_QUOTA: '20/day,1000/month', ENVDATA_SYNC_RESERVE: '5' };
    const [a, b] = [gate(env), gate(env)];
    const backfill = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).take('other', now)),
    );
    expect(backfill.filter((h) => h === undefined)).toHaveLength(15);
    const held = backfill.find((h) => h !== undefined)!;
    expect(held.window).toBe('day');
    expect(new Date(held.untilMs).toISOString().slice(11)).toBe('00:00:00.000Z');
    expect(held.untilMs - now).toBe(14 * 3_600_000);

    const sync = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).take('sync', now)),
    );
    expect(sync.filter((h) => h === undefined)).toHaveLength(5);
    expect(await a.usage(now)).toEqual([
      {
        window: 'day',
        used: 20,
        limit: 20,
        limitedBy: 'quota',
        reserve: 5,
        resetsAtMs: held.untilMs,
        refusedByService: false,
      },
      expect.objectContaining({ window: 'month', used: 20, limit: 1000, reserve: 0 }),
    ]);
    // The next day starts afresh.
    expect(await b.take('other', held.untilMs)).toBeUndefined();
  });

  it('marks the day spent for every host when the service says so', async () => {
    const now = Date.parse('2001-02-03T10:00:00Z') + Math.floor(Math.random() * 1e6) * 86_400_000;
    const env = { ENVDATA_QUOTA: '500/day' };
    const [a, b] = [gate(env), gate(env)];
    expect(await a.take('sync', now)).toBeUndefined();
    const spent = await a.spent(now);
    expect(spent?.window).toBe('day');
    // Its own state: the count envdata had made (1 of 500), not the cap it is raised to.
    expect(spent?.refusedByService).toEqual({ counted: 1, limit: 500 });
    expect(await b.take('sync', now + 1)).toEqual(spent);
    expect(await b.usage(now + 1)).toEqual([
      expect.objectContaining({ window: 'day', used: 1, limit: 500, refusedByService: true }),
    ]);
  });

  it('caps the month at the calls the budget pays for when that is tighter than the quota', async () => {
    const now = Date.parse('2001-02-03T10:00:00Z') + Math.floor(Math.random() * 1e6) * 86_400_000;
    const env = {
      ENVDATA_QUOTA: '1000/month',
      ENVDATA_PRICE_PER_CALL: '0.40 EUR',
      ENVDATA_BUDGET: '1.30 EUR/month',
    };
    const g = gate(env);
    const takes = [];
    for (let i = 0; i < 4; i += 1) takes.push(await g.take('sync', now));
    expect(takes.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(takes[3]).toMatchObject({ window: 'month', by: 'budget' });
    expect(await g.usage(now)).toEqual([
      expect.objectContaining({ window: 'month', used: 3, limit: 3, limitedBy: 'budget' }),
    ]);
  });

  it('counts nothing without a quota', async () => {
    const g = gate({});
    expect(g.enabled).toBe(false);
    expect(await g.take('other')).toBeUndefined();
    expect(await g.usage()).toEqual([]);
  });
});
