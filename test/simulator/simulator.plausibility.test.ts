import { describe, expect, it } from 'vitest';
import { historyQuery, PLACES, useTestSimulator } from './simulator-http.js';

type PollenData = { data: { time: number; Count: Record<string, number> }[] };
type WeatherData = {
  data: { history: { time: number; temperature: number; icon: string; uvIndex: number }[] };
};

const { client } = useTestSimulator();

const day = (month: number, dayOfMonth: number) => {
  const from = new Date(Date.UTC(2023, month - 1, dayOfMonth)).toISOString();
  const to = new Date(Date.UTC(2023, month - 1, dayOfMonth + 2)).toISOString();
  return [from, to] as const;
};

/** Mean count of one pollen type over two days around the 10th and 20th of a month. */
async function pollenMean(place: { lat: number; lng: number }, month: number, type: string) {
  let sum = 0;
  let n = 0;
  for (const d of [9, 19]) {
    const res = await client.get(
      `/history/pollen/by-lat-lng?${historyQuery(place.lat, place.lng, ...day(month, d))}`,
    );
    for (const record of res.json<PollenData>().data) {
      sum += record.Count[type] ?? 0;
      n += 1;
    }
  }
  return sum / n;
}

async function weatherHours(place: { lat: number; lng: number }, month: number) {
  const out: WeatherData['data']['history'] = [];
  for (const d of [5, 15, 25]) {
    const res = await client.get(
      `/weather/history/by-lat-lng?${historyQuery(place.lat, place.lng, ...day(month, d))}&units=si`,
    );
    out.push(...res.json<WeatherData>().data.history);
  }
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('pollen seasons', () => {
  it('north: trees in spring, grass in early summer, weeds in late summer, little in winter', async () => {
    const { berlin } = PLACES;
    const [treeApr, treeDec] = [
      await pollenMean(berlin, 4, 'tree_pollen'),
      await pollenMean(berlin, 12, 'tree_pollen'),
    ];
    expect(treeApr).toBeGreaterThan(50);
    expect(treeApr).toBeGreaterThan(10 * treeDec);
    expect(await pollenMean(berlin, 6, 'grass_pollen')).toBeGreaterThan(
      5 * (await pollenMean(berlin, 1, 'grass_pollen')),
    );
    expect(await pollenMean(berlin, 8, 'weed_pollen')).toBeGreaterThan(
      3 * (await pollenMean(berlin, 4, 'weed_pollen')),
    );
    const winter =
      treeDec +
      (await pollenMean(berlin, 12, 'grass_pollen')) +
      (await pollenMean(berlin, 12, 'weed_pollen'));
    expect(winter).toBeLessThan(15);
  });

  it('south: the seasons flip', async () => {
    const { sydney } = PLACES;
    expect(await pollenMean(sydney, 10, 'tree_pollen')).toBeGreaterThan(
      5 * (await pollenMean(sydney, 4, 'tree_pollen')),
    );
    expect(await pollenMean(sydney, 12, 'grass_pollen')).toBeGreaterThan(
      5 * (await pollenMean(sydney, 6, 'grass_pollen')),
    );
  });
});

describe('weather cycles', () => {
  it('is warmer in summer than in winter, on each side of the equator', async () => {
    const berlinJul = mean((await weatherHours(PLACES.berlin, 7)).map((h) => h.temperature));
    const berlinJan = mean((await weatherHours(PLACES.berlin, 1)).map((h) => h.temperature));
    expect(berlinJul - berlinJan).toBeGreaterThan(10);
    expect(berlinJan).toBeGreaterThan(-15);
    expect(berlinJul).toBeLessThan(32);
    const sydneyJan = mean((await weatherHours(PLACES.sydney, 1)).map((h) => h.temperature));
    const sydneyJul = mean((await weatherHours(PLACES.sydney, 7)).map((h) => h.temperature));
    expect(sydneyJan).toBeGreaterThan(sydneyJul + 4);
  });

  it('is warmer in the afternoon than before dawn, with UV and day icons only by day', async () => {
    const hours = await weatherHours(PLACES.berlin, 5);
    const atUtc = (h: number) => hours.filter((r) => new Date(r.time * 1000).getUTCHours() === h);
    expect(mean(atUtc(14).map((r) => r.temperature))).toBeGreaterThan(
      mean(atUtc(3).map((r) => r.temperature)) + 2,
    );
    for (const night of atUtc(23)) {
      expect(night.uvIndex).toBe(0);
      expect(night.icon.endsWith('-day')).toBe(false);
    }
    expect(atUtc(11).some((r) => r.uvIndex > 2)).toBe(true);
    expect(atUtc(11).every((r) => !r.icon.endsWith('-night'))).toBe(true);
  });
});
