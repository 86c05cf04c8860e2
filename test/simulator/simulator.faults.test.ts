import { beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/start-simulator.js';
import type { SimulatorStats } from '../../src/simulator/stats/simulator-stats.js';
import { createTestClient, historyQuery, TEST_NOW, useTestSimulator } from './simulator-http.js';

const { sim, client } = useTestSimulator();
const POLLEN = `/history/pollen/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-22T00:00:00Z')}`;
const WEATHER = `/weather/history/by-lat-lng?${historyQuery(52.52, 13.405, '2024-04-20T00:00:00Z', '2024-04-22T00:00:00Z')}&units=si`;
const LATEST = '/latest/pollen/by-lat-lng?lat=52.52&lng=13.405';

beforeEach(() => {
  sim().clearFaults();
  sim().resetStats();
});

describe('fault kinds', () => {
  it('error: a JSON 5xx with the configured status', async () => {
    sim().setFaults('pollen-history:error=503x1');
    const res = await client.get(POLLEN);
    expect(res.status).toBe(503);
    expect(res.json()).toEqual({ message: 'Service Unavailable' });
    expect((await client.get(POLLEN)).status).toBe(200);
  });

  it('text: a plain-text error body', async () => {
    sim().setFaults('all:text x1');
    const res = await client.get(LATEST);
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toBe('502 Bad Gateway');
  });

  it('malformed: status 200 and a JSON-looking body no parser accepts', async () => {
    const good = await client.get(POLLEN);
    sim().setFaults('history:malformed x1');
    const res = await client.get(POLLEN);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.text.length).toBe(good.text.length - 1);
    expect(() => res.json()).toThrow(SyntaxError);
  });

  it('truncated: 206 and the normal body cut in the middle', async () => {
    const good = await client.get(POLLEN);
    sim().setFaults('pollen:truncated x1');
    const res = await client.get(POLLEN);
    expect(res.status).toBe(206);
    expect(res.text.length).toBe(Math.floor(good.text.length / 2));
    expect(good.text.startsWith(res.text)).toBe(true);
    expect(() => res.json()).toThrow(SyntaxError);
  });

  it('nodata: a transient "Data not available!" for N requests, then the real data', async () => {
    const good = await client.get(WEATHER);
    sim().setFaults('weather-history:nodata x2');
    for (let i = 0; i < 2; i += 1) {
      const res = await client.get(WEATHER);
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ message: 'Data not available!', data: [] });
    }
    // Other endpoints are left alone, and the third request has the data again.
    expect((await client.get(POLLEN)).json<{ message: string }>().message).toBe('success');
    expect((await client.get(WEATHER)).text).toBe(good.text);
    expect(sim().stats().faults).toMatchObject({ nodata: 2 });
  });

  it('nodata takes no parameter', () => {
    expect(() => sim().setFaults('history:nodata=3x1')).toThrow(/nodata takes no parameter/);
  });

  it('reset: the connection is dropped without an answer', async () => {
    sim().setFaults('weather-history:reset x1');
    await expect(client.get(WEATHER)).rejects.toThrow();
    expect((await client.get(WEATHER)).status).toBe(200);
    expect(sim().stats().byEndpointStatus['weather-history']).toEqual({ reset: 1, '200': 1 });
  });

  it('hang: no answer until the client gives up; the simulator keeps serving', async () => {
    sim().setFaults('latest:hang x1');
    await expect(client.get(LATEST, { headersTimeout: 300 })).rejects.toMatchObject({
      code: 'UND_ERR_HEADERS_TIMEOUT',
    });
    expect((await client.get(LATEST)).status).toBe(200);
    expect(sim().stats().byStatus).toEqual({ hang: 1, '200': 1 });
  });

  it('latency: the normal answer, later', async () => {
    sim().setFaults('pollen-latest:latency=250x1');
    const started = performance.now();
    const res = await client.get(LATEST);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(res.status).toBe(200);
    expect(sim().stats().faults).toEqual({ latency: 1 });
  });
});

describe('one-shot scripts', () => {
  it('fail exactly the next N matching calls, leaving other endpoints alone', async () => {
    sim().setFaults('pollen-history:error=503x3');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await client.get(POLLEN)).status);
      if (i === 0) expect((await client.get(WEATHER)).status).toBe(200);
    }
    expect(statuses).toEqual([503, 503, 503, 200, 200]);
    expect(sim().faults().scripts).toEqual([]);
    const stats = sim().stats();
    expect(stats.byEndpointStatus).toEqual({
      'pollen-history-by-lat-lng': { '503': 3, '200': 2 },
      'weather-history': { '200': 1 },
    });
    expect(stats.faults).toEqual({ error: 3 });
    expect(stats.total).toBe(6);
  });

  it('run in the order added, each spent before the next', async () => {
    sim().addFaultScripts([
      { endpoint: 'history', kind: 'error', status: 500, count: 1 },
      { endpoint: 'history', kind: 'text', status: 504, count: 2 },
    ]);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.get(WEATHER)).status);
    expect(statuses).toEqual([500, 504, 504, 200]);
  });
});

describe('fault rates', () => {
  async function run(count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await client.get(LATEST)).status);
    return statuses;
  }

  it('fail about the given share of calls, the same ones for the same seed', async () => {
    sim().setFaults('all:error=500@30%; seed=42');
    const first = await run(40);
    sim().setFaults({
      rules: [{ endpoint: 'all', kind: 'error', status: 500, rate: 0.3 }],
      seed: 42,
    });
    const second = await run(40);
    expect(second).toEqual(first);
    const failures = first.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(4);
    expect(failures).toBeLessThan(24);
    sim().setFaults('all:error=500@30%; seed=43');
    expect(await run(40)).not.toEqual(first);
  });

  it('never fail at rate 0 and always at rate 1', async () => {
    sim().setFaults('all:error@0');
    expect(await run(5)).toEqual([200, 200, 200, 200, 200]);
    sim().setFaults('pollen:error=502@1');
    expect(await run(3)).toEqual([502, 502, 502]);
  });
});

describe('admin endpoint', () => {
  it('sets, shows and clears faults and scripts over HTTP', async () => {
    const set = await client.post('/__admin/faults', {
      rules: [{ endpoint: 'weather', kind: 'latency', latencyMs: 1, rate: 1 }],
      scripts: [{ endpoint: 'pollen-history', kind: 'error', status: 503, count: 2 }],
    });
    expect(set.status).toBe(200);
    expect((await client.post('/__admin/scripts', 'latest:reset x1')).status).toBe(200);
    expect((await client.get(POLLEN)).status).toBe(503);
    const state = (await client.get('/__admin/faults')).json<{
      scripts: { kind: string; remaining: number }[];
    }>();
    expect(state.scripts.map((s) => [s.kind, s.remaining])).toEqual([
      ['error', 1],
      ['reset', 1],
    ]);
    expect((await client.delete('/__admin/faults')).json()).toEqual({
      rules: [],
      scripts: [],
      seed: 1,
    });
    expect((await client.get(POLLEN)).status).toBe(200);
  });

  it('refuses bad fault input with 400 and the reason', async () => {
    const badKind = await client.post('/__admin/faults', 'history:explode x1');
    expect(badKind.status).toBe(400);
    expect(badKind.json<{ message: string }>().message).toContain('explode');
    const badSelector = await client.post('/__admin/faults', {
      scripts: [{ endpoint: 'nowhere', kind: 'error', count: 1 }],
    });
    expect(badSelector.status).toBe(400);
    expect(badSelector.json<{ message: string }>().message).toContain('nowhere');
    expect((await client.post('/__admin/faults', '{not json')).status).toBe(400);
    expect((await client.get('/__admin/nothing')).status).toBe(404);
  });

  it('counts every request by endpoint, masked key and status, and resets the counts', async () => {
    await client.get(POLLEN);
    await client.get(POLLEN);
    await client.get(WEATHER, { key: 'wrong-key-xyz' });
    await client.get(LATEST, { key: null });
    const stats = (await client.get('/__admin/stats')).json<SimulatorStats>();
    expect(stats).toMatchObject({
      total: 4,
      byEndpoint: {
        'pollen-history-by-lat-lng': 2,
        'weather-history': 1,
        'pollen-latest-by-lat-lng': 1,
      },
      byStatus: { '200': 2, '401': 2 },
      byKey: { 'envd…': 2, 'wron…': 1, '(none)': 1 },
    });
    expect(JSON.stringify(stats)).not.toContain('envdata-demo-key');
    expect(JSON.stringify(stats)).not.toContain('wrong-key-xyz');
    expect(sim().stats().adminRequests).toBe(1);
    expect((await client.post('/__admin/reset')).json()).toEqual({ ok: true });
    expect(sim().stats()).toMatchObject({ total: 0, byEndpoint: {}, adminRequests: 0 });
  });

  it('masks keys when showing options', async () => {
    const options = (await client.get('/__admin/options')).json<{
      keys: Record<string, string[]>;
    }>();
    expect(options.keys).toEqual({ 'envd…': ['pollen', 'weather', 'geocode'] });
  });
});

describe('close', () => {
  it('returns promptly with a hanging request and idle keep-alive connections open', async () => {
    const own = await startSimulator({ now: TEST_NOW, faults: 'all:hang x1' });
    const ownClient = createTestClient(() => own.url);
    const hanging = ownClient.get(LATEST);
    hanging.catch(() => undefined);
    await ownClient.get('/__admin/stats');
    await expect.poll(() => own.stats().byStatus.hang).toBe(1);
    const started = performance.now();
    await own.close();
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(hanging).rejects.toThrow();
    await ownClient.close();
  });
});
