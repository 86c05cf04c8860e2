import { beforeEach, describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator } from '../../src/simulator/start-simulator.js';
import type { QuotaKeyStats, SimulatorStats } from '../../src/simulator/stats/simulator-stats.js';
import { pollUntil } from '../harness/poll-until.js';
import { TEST_NOW, useTestSimulator } from './simulator-http.js';

const LATEST = '/latest/pollen/by-lat-lng?lat=52.52&lng=13.405';
const OTHER_KEY = 'other-key-5678';
const { sim, client } = useTestSimulator({
  keys: { [DEMO_API_KEY]: ['pollen', 'weather', 'geocode'], [OTHER_KEY]: ['pollen'] },
});

beforeEach(() => {
  sim().setOptions({
    rateLimit: null,
    quota: null,
    dailyQuota: null,
    daySeconds: 86_400,
    now: TEST_NOW,
  });
  sim().resetLimits();
  sim().resetStats();
});

async function call(path = LATEST, key?: string) {
  const res = await client.get(path, { key });
  return { status: res.status, retryAfter: res.headers['retry-after'], text: res.text };
}

async function statuses(count: number, key?: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await call(LATEST, key)).status);
  return out;
}

/** The admin endpoint's stats, over HTTP. */
async function adminStats(): Promise<SimulatorStats> {
  const res = await client.get('/__admin/stats');
  expect(res.status).toBe(200);
  return res.json<SimulatorStats>();
}

function usageOf(stats: SimulatorStats, masked: string): QuotaKeyStats {
  const entry = stats.quota?.keys.find((k) => k.key === masked);
  if (entry === undefined) throw new Error(`no quota entry for ${masked}`);
  return entry;
}

/** Waits, on the admin stats, until the key's quota day is no longer `day`. */
function nextDay(masked: string, day: string): Promise<QuotaKeyStats> {
  return pollUntil<QuotaKeyStats, QuotaKeyStats>(
    async () => {
      const usage = usageOf(await adminStats(), masked);
      return usage.day === day ? { last: usage } : { done: usage };
    },
    { timeoutMs: 10_000, describe: (u) => `the quota day did not end: ${JSON.stringify(u)}` },
  );
}

describe('quota per key', () => {
  it('lets perDay calls through, then answers 429 "quota exceeded" without Retry-After, counted apart', async () => {
    sim().setOptions({ quota: { perDay: 3 } });
    expect(await statuses(3)).toEqual([200, 200, 200]);
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBeUndefined();
    expect(JSON.parse(refused.text)).toEqual({ message: 'quota exceeded' });
    expect((await call()).status).toBe(429);

    const stats = await adminStats();
    expect(stats.byStatus).toEqual({ '200': 3, '429': 2 });
    expect(stats.quotaExhausted).toEqual({ 'envd…': 2 });
    expect(stats.quota).toMatchObject({
      clock: '2024-07-01T12:34:00.000Z',
      daySeconds: 86_400,
      timeZone: 'UTC',
      perDay: 3,
      perMonth: null,
    });
    expect(usageOf(stats, 'envd…')).toEqual({
      key: 'envd…',
      day: '2024-07-01',
      usedToday: 3,
      month: '2024-07',
      usedThisMonth: 3,
      exhausted: true,
      dayResetsAt: '2024-07-02T00:00:00.000Z',
      monthResetsAt: '2024-08-01T00:00:00.000Z',
      // The clock is frozen and days are real: no reset comes by itself.
      dayResetsInMs: null,
      monthResetsInMs: null,
    });
  });

  it('counts each key apart: one key spent leaves the other its calls', async () => {
    sim().setOptions({ quota: { perDay: 2 } });
    expect(await statuses(3)).toEqual([200, 200, 429]);
    expect(await statuses(3, OTHER_KEY)).toEqual([200, 200, 429]);
    expect(await statuses(1)).toEqual([429]);
    const stats = await adminStats();
    expect(stats.quotaExhausted).toEqual({ 'envd…': 2, 'othe…': 1 });
    expect(usageOf(stats, 'envd…')).toMatchObject({ usedToday: 2, exhausted: true });
    expect(usageOf(stats, 'othe…')).toMatchObject({ usedToday: 2, exhausted: true });
  });

  it('counts geocoding, 400 answers and "no data" answers; not 401, 403 or rate-limited calls', async () => {
    sim().setOptions({ quota: { perDay: 100 }, rateLimit: { max: 4, durationMs: 60_000 } });
    expect((await call('/geocode/by-place?place=Berlin')).status).toBe(200);
    expect((await call('/latest/pollen/by-lat-lng?lat=north&lng=13.4')).status).toBe(400);
    // São Paulo is outside pollen coverage: 200 "Data not available!".
    expect((await call('/latest/pollen/by-lat-lng?lat=-23.55&lng=-46.63')).text).toContain(
      'Data not available!',
    );
    expect((await call(LATEST, 'no-such-key')).status).toBe(401);
    expect((await call('/geocode/by-place?place=Oslo', OTHER_KEY)).status).toBe(403);
    expect(await statuses(3)).toEqual([200, 429, 429]);
    expect(usageOf(await adminStats(), 'envd…').usedToday).toBe(4);
    expect(usageOf(await adminStats(), 'othe…').usedToday).toBe(0);
  });

  it('resets at the end of a short day (ENVDATA_SIM_DAY_SECONDS), awaited on the stats', async () => {
    // Short days begin at whole multiples of 2 s since the epoch, as envdata's do: from the
    // start of the next one, a whole short day is ample for three calls.
    sim().setOptions({ quota: { perDay: 2 }, daySeconds: 2, now: '2024-07-01T00:00:00Z' });
    expect(usageOf(await adminStats(), 'envd…').day).toBe('2024-07-01');
    const before = await nextDay('envd…', '2024-07-01');
    expect(before.day).toBe('2024-07-02');
    expect(before.dayResetsInMs).toBeGreaterThan(1_000);
    expect(before.dayResetsInMs).toBeLessThanOrEqual(2_000);
    // The reset falls on a whole multiple of the short day, as envdata counts them.
    const off = (Date.now() + before.dayResetsInMs!) % 2_000;
    expect(Math.min(off, 2_000 - off)).toBeLessThan(100);
    expect(await statuses(3)).toEqual([200, 200, 429]);

    const after = await nextDay('envd…', '2024-07-02');
    expect(after).toMatchObject({ day: '2024-07-03', usedToday: 0, exhausted: false });
    expect(after.usedThisMonth).toBe(2);
    expect(await statuses(3)).toEqual([200, 200, 429]);
  });

  it('holds a monthly quota across short days and reports the month reset', async () => {
    sim().setOptions({
      quota: { perDay: 2, perMonth: 3, retryAfter: 'always' },
      daySeconds: 2,
      now: '2024-07-09T00:00:00Z',
    });
    // From the start of a short day (they begin at whole multiples of 2 s since the epoch).
    await nextDay('envd…', '2024-07-09');
    expect(await statuses(2)).toEqual([200, 200]);
    const daySpent = await call();
    expect(daySpent.status).toBe(429);
    // The day's end, in real seconds: at most one short day.
    expect(Number(daySpent.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(daySpent.retryAfter)).toBeLessThanOrEqual(2);

    await nextDay('envd…', '2024-07-10');
    expect(await statuses(1)).toEqual([200]);
    const monthSpent = await call();
    expect(monthSpent.status).toBe(429);
    expect(JSON.parse(monthSpent.text)).toEqual({ message: 'quota exceeded' });
    // The month ends on 1 August, 21 short days of 2 s after 11 July began: not one day away.
    expect(Number(monthSpent.retryAfter)).toBeGreaterThan(38);
    expect(Number(monthSpent.retryAfter)).toBeLessThanOrEqual(42);
    const stats = await adminStats();
    expect(usageOf(stats, 'envd…')).toMatchObject({
      day: '2024-07-11',
      usedToday: 1,
      month: '2024-07',
      usedThisMonth: 3,
      exhausted: true,
      monthResetsAt: '2024-08-01T00:00:00.000Z',
    });
    expect(stats.quotaExhausted).toEqual({ 'envd…': 2 });
  });

  it('starts a new month on the 1st: a monthly quota spent on 31 July is whole again on 1 August', async () => {
    sim().setOptions({ quota: { perMonth: 1 }, now: '2024-07-31T23:59:59Z' });
    expect(await statuses(2)).toEqual([200, 429]);
    sim().setOptions({ now: '2024-08-01T00:00:00Z' });
    expect(await statuses(2)).toEqual([200, 429]);
    expect(usageOf(await adminStats(), 'envd…')).toMatchObject({
      month: '2024-08',
      usedThisMonth: 1,
      monthResetsAt: '2024-09-01T00:00:00.000Z',
    });
  });

  it("resets at the provider's local midnight in its time zone, not UTC's", async () => {
    // 23:30 in Berlin, 21:30 UTC.
    sim().setOptions({
      quota: { perDay: 1, timeZone: 'Europe/Berlin' },
      now: '2024-07-01T21:30:00Z',
    });
    expect(await statuses(2)).toEqual([200, 429]);
    expect(usageOf(await adminStats(), 'envd…')).toMatchObject({
      day: '2024-07-01',
      dayResetsAt: '2024-07-01T22:00:00.000Z',
    });
    // Berlin's midnight passes; UTC's does not.
    sim().setOptions({ now: '2024-07-01T22:00:01Z' });
    expect(await statuses(2)).toEqual([200, 429]);

    sim().setOptions({ quota: { perDay: 1 }, now: '2024-07-01T21:30:00Z' });
    sim().resetLimits();
    expect(await statuses(2)).toEqual([200, 429]);
    sim().setOptions({ now: '2024-07-01T22:00:01Z' });
    expect(await statuses(1)).toEqual([429]);
  });

  it('is set, reported and reset over HTTP: POST /__admin/options, GET /__admin/stats, POST /__admin/reset', async () => {
    const set = await client.post('/__admin/options', {
      quota: { perDay: 1, status: 422 },
      daySeconds: 3_600,
    });
    expect(set.status).toBe(200);
    expect(set.json()).toMatchObject({ quota: { perDay: 1, status: 422 }, daySeconds: 3_600 });
    expect(await statuses(2)).toEqual([200, 422]);
    const stats = await adminStats();
    expect(stats.quotaExhausted).toEqual({ 'envd…': 1 });
    expect(stats.quota?.daySeconds).toBe(3_600);
    // Clearing the stats keeps the quota's use; clearing the limits ends it.
    sim().resetStats();
    expect(usageOf(await adminStats(), 'envd…').usedToday).toBe(1);
    expect((await client.post('/__admin/reset')).status).toBe(200);
    expect(usageOf(await adminStats(), 'envd…').usedToday).toBe(0);
    expect(await statuses(1)).toEqual([200]);
  });

  it('refuses bad values with a message naming the option and what it accepts, and changes nothing', async () => {
    sim().setOptions({ quota: { perDay: 5 } });
    const refused = (patch: Record<string, unknown>): string => {
      try {
        sim().setOptions(patch);
      } catch (error) {
        expect(isEnvdataError(error) && error.code).toBe('VALIDATION_FAILED');
        return (error as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(patch)}`);
    };
    expect(refused({ quota: { perDay: -1 } })).toMatch(/quota\.perDay/);
    expect(refused({ quota: { perMonth: 2.5 } })).toMatch(/quota\.perMonth/);
    expect(refused({ quota: {} })).toMatch(/quota: must set perDay, perMonth or both/);
    expect(refused({ quota: { perDay: 1, timeZone: 'Mars/Olympus' } })).toMatch(
      /quota\.timeZone: must be an IANA time zone such as UTC or Europe\/Berlin/,
    );
    expect(refused({ quota: { perDay: 1, status: 500 } })).toMatch(/quota\.status/);
    expect(refused({ daySeconds: 0 })).toMatch(/daySeconds: must be at least 1 second/);
    expect(refused({ daySeconds: 86_401 })).toMatch(/daySeconds: must be at most 86400 seconds/);
    expect(refused({ daySeconds: 1.5 })).toMatch(/daySeconds: must be whole seconds/);

    const overHttp = await client.post('/__admin/options', { daySeconds: 'short' });
    expect(overHttp.status).toBe(400);
    expect(overHttp.json<{ message: string }>().message).toContain('daySeconds');
    expect(sim().options()).toMatchObject({ quota: { perDay: 5 }, daySeconds: 86_400 });

    await expect(startSimulator({ daySeconds: 0 })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('daySeconds') as unknown,
    });
  });
});
