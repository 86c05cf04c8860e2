import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { TEST_NOW, useTestSimulator } from './simulator-http.js';

const LATEST = '/latest/pollen/by-lat-lng?lat=52.52&lng=13.405';
const SECOND_KEY = 'second-key-1234';
// The clock is frozen, so a rate window never ends by itself: the tests are exact.
const { sim, client } = useTestSimulator({
  keys: { [DEMO_API_KEY]: ['pollen', 'weather', 'geocode'], [SECOND_KEY]: ['pollen'] },
});

beforeEach(() => {
  sim().setOptions({ rateLimit: null, dailyQuota: null });
  sim().resetLimits();
  sim().resetStats();
});

async function statuses(count: number, key?: string) {
  const out: { status: number; retryAfter: string | string[] | undefined }[] = [];
  for (let i = 0; i < count; i++) {
    const res = await client.get(LATEST, { key });
    out.push({ status: res.status, retryAfter: res.headers['retry-after'] });
  }
  return out;
}

describe('rate limit', () => {
  it('answers 429 with Retry-After (seconds to the window end) past max calls per window, per key', async () => {
    sim().setOptions({ rateLimit: { max: 3, durationMs: 60_000, retryAfter: 'always' } });
    const answers = await statuses(5);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[3]!.retryAfter).toBe('60');
    expect(answers[0]!.retryAfter).toBeUndefined();
    const limited = await client.get(LATEST);
    expect(limited.json()).toEqual({ message: 'Too Many Requests' });
    expect((await statuses(1, SECOND_KEY))[0]!.status).toBe(200);
    expect(sim().stats().byStatus).toEqual({ '200': 4, '429': 3 });
  });

  it('can answer 429 without Retry-After, never or sometimes (reproducibly)', async () => {
    sim().setOptions({ rateLimit: { max: 1, durationMs: 60_000, retryAfter: 'never' } });
    const never = await statuses(4);
    expect(never.slice(1).every((a) => a.status === 429 && a.retryAfter === undefined)).toBe(true);

    sim().setOptions({ rateLimit: { max: 1, durationMs: 60_000, retryAfter: 'sometimes' } });
    sim().resetLimits();
    const first = (await statuses(21)).slice(1).map((a) => a.retryAfter !== undefined);
    sim().resetLimits();
    const again = (await statuses(21)).slice(1).map((a) => a.retryAfter !== undefined);
    expect(first).toEqual(again);
    expect(first.filter(Boolean).length).toBeGreaterThan(2);
    expect(first.filter((x) => !x).length).toBeGreaterThan(2);
  });

  it('is set over HTTP through POST /__admin/options', async () => {
    const res = await client.post('/__admin/options', { rateLimit: { max: 1, durationMs: 1000 } });
    expect(res.status).toBe(200);
    expect((await statuses(2)).map((a) => a.status)).toEqual([200, 429]);
    await client.post('/__admin/reset');
    expect((await statuses(1))[0]!.status).toBe(200);
  });
});

describe('daily quota (the older option; `quota` in simulator.quota.test.ts)', () => {
  it('answers 429 "quota exceeded" with Retry-After until UTC midnight once the quota is used up', async () => {
    sim().setOptions({ dailyQuota: { max: 2 } });
    const answers = await statuses(3);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    // 2024-07-01 12:34 → midnight is 11 h 26 min away.
    expect(answers[2]!.retryAfter).toBe(String(11 * 3600 + 26 * 60));
    expect((await client.get(LATEST)).json()).toEqual({ message: 'quota exceeded' });
    expect((await statuses(1, SECOND_KEY))[0]!.status).toBe(200);
  });

  it('answers 422 when configured so, and a new UTC day restores it', async () => {
    sim().setOptions({ dailyQuota: { max: 1, status: 422, retryAfter: 'never' } });
    const answers = await statuses(2);
    expect(answers.map((a) => a.status)).toEqual([200, 422]);
    expect(answers[1]!.retryAfter).toBeUndefined();
    sim().setOptions({ now: '2024-07-02T00:00:01Z' });
    expect((await statuses(1))[0]!.status).toBe(200);
    sim().setOptions({ now: TEST_NOW });
  });

  it('does not count calls refused by the rate limit', async () => {
    sim().setOptions({ rateLimit: { max: 1, durationMs: 60_000 }, dailyQuota: { max: 2 } });
    expect((await statuses(3)).map((a) => a.status)).toEqual([200, 429, 429]);
    sim().setOptions({ rateLimit: null });
    expect((await statuses(2)).map((a) => a.status)).toEqual([200, 429]);
  });
});
