import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { Admission } from '../../src/admission/admission.js';
import { admissionStores } from '../../src/admission/admission-stores.js';
import { useBackfillFixture } from '../harness/backfill-fixture.js';

// The door over the real counters: the quota's rows in the warehouse, the pace's slots and the
// budget's windows beside the queue (Redis, or Postgres on the postgres backend).
const fx = useBackfillFixture();

/** An admission on its own app (another host), pausing nobody: a pause here is a failure. */
function admission(env: Record<string, string>): Admission {
  const app = fx.newApp(env);
  return Admission.open(admissionStores(app.queues), app.config, (ms) =>
    Promise.reject(new Error(`unexpected pause of ${ms} ms`)),
  );
}

describe('the admission of a call', () => {
  it('runs the pace, then the quota with the sync’s reserve, then the budget, one door for all', async () => {
    await sql`delete from envdata.quota_usage`.execute(fx.app.db);
    const door = admission({
      ENVDATA_QUOTA: '3/day',
      ENVDATA_SYNC_RESERVE: '1',
      // 50/s is paced at each call; 3/min is the budget's fixed window.
      ENVDATA_RATE_LIMIT: `50/s,3/min`,
    });
    expect(door.pacer?.rule.max).toBe(50);
    // Paced: BullMQ's limiter binds nothing and only carries the pauses.
    expect(door.limiter.max).toBe(1_000_000_000);
    const other = { use: async () => 'other' as const, budgeted: true };
    const first = await door.admit(other);
    expect(first.kind).toBe('permit');
    if (first.kind === 'permit') first.permit.answered();
    expect((await door.admit(other)).kind).toBe('permit');
    // The day's third call is the sync's alone.
    const held = await door.admit(other);
    expect(held).toMatchObject({ kind: 'quota', hold: { window: 'day', by: 'quota' } });
    // The sync takes the reserve; a snapshot's call is not counted in the budget.
    expect((await door.admit({ use: 'sync', budgeted: false })).kind).toBe('permit');
    const { rows } = await sql<{ used: number }>`
      select used from envdata.quota_usage where quota_window = 'day'`.execute(fx.app.db);
    expect(rows.map((r) => Number(r.used))).toEqual([3]);
  });

  it('waits out a spent budget, and without a quota never reads whose call it is', async () => {
    const door = admission({ ENVDATA_RATE_LIMIT: `50/s,2/h` });
    const call = {
      use: () => Promise.reject(new Error('read without a quota')),
      budgeted: true,
    };
    const results = [];
    for (let i = 0; i < 3; i += 1) results.push(await door.admit(call));
    // Two calls in the window may go (or one, when the minute turned between them).
    const refused = results.filter((r) => r.kind === 'budget');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) if (r.kind === 'budget') expect(r.ms).toBeGreaterThan(0);
  });

  it('lets no call go once the worker is stopping: the pace says why', async () => {
    const door = admission({ ENVDATA_RATE_LIMIT: '50/s' });
    const stopping = new AbortController();
    stopping.abort();
    const admitted = await door.admit({ use: 'other', budgeted: true }, stopping.signal);
    expect(admitted.kind).toBe('pace');
    if (admitted.kind === 'pace') expect(admitted.error).toMatchObject({ code: 'ABORTED' });
  });

  it('hears the service’s "quota exceeded" once for every worker, and a 429 as a pause', async () => {
    await sql`delete from envdata.quota_usage`.execute(fx.app.db);
    const door = admission({ ENVDATA_QUOTA: '1000/day', ENVDATA_SYNC_RESERVE: '0' });
    const admitted = await door.admit({ use: 'other', budgeted: true });
    if (admitted.kind !== 'permit') throw new Error(`not admitted: ${admitted.kind}`);
    // With a Retry-After the service's own pause holds; without one, the day is spent.
    expect(await door.refused(admitted.permit, 'QUOTA_EXCEEDED', 5_000)).toBeUndefined();
    const hold = await door.refused(admitted.permit, 'QUOTA_EXCEEDED', undefined);
    expect(hold).toMatchObject({ window: 'day', refusedByService: { counted: 1, limit: 1000 } });
    expect(await door.admit({ use: 'sync', budgeted: false })).toMatchObject({ kind: 'quota' });
    // A throttled answer: the pause its Retry-After asks for, within ENVDATA_MAX_PAUSE.
    expect(await door.refused(admitted.permit, 'RATE_LIMITED', 2_000)).toBeUndefined();
    expect(door.pauseMs({ baseMs: 1_000, capMs: 60_000 }, 2_000)).toBe(2_000);
  });
});
