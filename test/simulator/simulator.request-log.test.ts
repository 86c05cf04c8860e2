import { beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/start-simulator.js';
import { historyQuery, PLACES, TEST_NOW, useTestSimulator } from './simulator-http.js';

const LATEST = '/latest/pollen/by-lat-lng?lat=52.52&lng=13.405';
const HISTORY = `/history/pollen/by-lat-lng?${historyQuery(
  PLACES.berlin.lat,
  PLACES.berlin.lng,
  '2024-06-02T00:00:00Z',
  '2024-06-04T00:00:00Z',
)}`;

// The clock is frozen, so a rate window never ends by itself: one window holds every call.
const { sim, client } = useTestSimulator({ requestLog: 3 });

beforeEach(() => {
  sim().setOptions({ rateLimit: null });
  sim().clearFaults();
  sim().resetLimits();
  sim().resetStats();
});

describe('request log', () => {
  it('keeps the most recent requests with query, caller and answer, never the key', async () => {
    await client.get(LATEST);
    await client.get(HISTORY);
    await client.get('/history/pollen/by-lat-lng?lat=1');
    await client.get(LATEST);
    const log = sim().requests();
    expect(log.map((r) => [r.endpoint, r.answer])).toEqual([
      ['pollen-history-by-lat-lng', 200],
      ['pollen-history-by-lat-lng', 400],
      ['pollen-latest-by-lat-lng', 200],
    ]);
    expect(log[0]!.query).toBe(HISTORY.slice(HISTORY.indexOf('?') + 1));
    expect(log[0]!.remote).toMatch(/127\.0\.0\.1$/);
    expect(log[0]!.answeredAt).toBeGreaterThanOrEqual(log[0]!.at);
    expect(JSON.stringify(log)).not.toContain('envdata-demo-key');

    const res = await client.get('/__admin/requests');
    expect(res.json()).toEqual(sim().requests());
    sim().resetStats();
    expect(sim().requests()).toEqual([]);
  });

  it('shows a held request as pending until it is answered', async () => {
    sim().setFaults('history:latency=300@100%');
    const answered = client.get(HISTORY);
    await expect
      .poll(() =>
        sim()
          .requests()
          .map((r) => r.answer),
      )
      .toEqual([undefined]);
    expect(sim().requests()[0]!.answeredAt).toBeUndefined();
    expect((await answered).status).toBe(200);
    expect(sim().requests().at(-1)!.answer).toBe(200);
  });

  it('is off unless asked for, and refuses a size it cannot keep', async () => {
    const plain = await startSimulator({ now: TEST_NOW });
    try {
      await fetch(`${plain.url}${LATEST}`, { headers: { 'x-api-key': 'envdata-demo-key' } });
      expect(plain.requests()).toEqual([]);
    } finally {
      await plain.close();
    }
    await expect(startSimulator({ requestLog: -1 })).rejects.toThrow(/requestLog must be/);
  });
});

describe('rate windows', () => {
  it('counts each key window as the service does: calls let through and refused', async () => {
    sim().setOptions({ rateLimit: { max: 2, durationMs: 60_000, retryAfter: 'always' } });
    for (let i = 0; i < 3; i++) await client.get(LATEST);
    expect(sim().stats().rateWindows).toEqual([
      { key: 'envd…', start: new Date(TEST_NOW).toISOString(), allowed: 2, limited: 1 },
    ]);
    sim().resetStats();
    expect(sim().stats().rateWindows).toEqual([]);
  });

  it('are empty without a rate limit', async () => {
    await client.get(LATEST);
    expect(sim().stats().rateWindows).toEqual([]);
  });
});
