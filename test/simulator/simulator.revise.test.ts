import { beforeEach, describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { isRevisedHour } from '../../src/simulator/data/is-revised-hour.js';
import { pollenRiskOf } from '../../src/simulator/data/pollen-risk.js';
import { siteKeyOf } from '../../src/simulator/data/site-key.js';
import type { ReviseOption } from '../../src/simulator/simulator-options.js';
import { startSimulator } from '../../src/simulator/start-simulator.js';
import { POLLEN_TYPES } from '../../src/types.js';
import { historyQuery, PLACES, useTestSimulator } from './simulator-http.js';

type WeatherRecord = Record<string, number | string> & { time: number };
type PollenRecord = {
  time: number;
  Count: Record<string, number>;
  Risk: Record<string, string>;
  Species: {
    Grass: Record<string, number>;
    Tree: Record<string, number>;
    Weed: Record<string, number>;
    Others: number;
  };
};

const { lat, lng } = PLACES.berlin;
const SITE_SEED = siteKeyOf(lat, lng).seed;
const FROM = '2024-06-20T00:00:00Z';
const TO = '2024-06-21T23:00:00Z';
const WEATHER = `/weather/history/by-lat-lng?${historyQuery(lat, lng, FROM, TO)}&units=si`;
const POLLEN = `/history/pollen/by-lat-lng?${historyQuery(lat, lng, FROM, TO)}`;
const REVISE: ReviseOption = { share: 0.3, seed: 'test' };

const { sim, client } = useTestSimulator();

beforeEach(() => {
  sim().setOptions({ revise: null });
  sim().forgetServedHours();
});

async function weather(path = WEATHER): Promise<WeatherRecord[]> {
  const res = await client.get(path);
  expect(res.status).toBe(200);
  return res.json<{ data: { history: WeatherRecord[] } }>().data.history;
}

async function pollen(path = POLLEN): Promise<PollenRecord[]> {
  const res = await client.get(path);
  expect(res.status).toBe(200);
  return res.json<{ data: PollenRecord[] }>().data;
}

/** The epoch hours whose records differ between two reads of the same window. */
function changedHours(a: readonly { time: number }[], b: readonly { time: number }[]): number[] {
  expect(b.map((r) => r.time)).toEqual(a.map((r) => r.time));
  return a.filter((r, i) => JSON.stringify(r) !== JSON.stringify(b[i])).map((r) => r.time / 3600);
}

function predicted(records: readonly { time: number }[], revise: ReviseOption): number[] {
  return records.map((r) => r.time / 3600).filter((h) => isRevisedHour(SITE_SEED, h, revise));
}

function twoDecimals(value: number): boolean {
  return Number.isFinite(value) && Math.round(value * 100) / 100 === value;
}

describe('revise: weather history', () => {
  it('answers an hour first as it was, then revised for about `share` of the hours; a third read equals the second', async () => {
    sim().setOptions({ revise: REVISE });
    const first = await weather();
    const second = await weather();
    const third = await weather();
    expect(third).toEqual(second);

    const changed = changedHours(first, second);
    expect(changed).toEqual(predicted(first, REVISE));
    expect(changed.length).toBeGreaterThan(0.1 * first.length);
    expect(changed.length).toBeLessThan(0.5 * first.length);

    sim().setOptions({ revise: null });
    expect(await weather()).toEqual(first);
  });

  it('revises temperature, humidity, dew point and pressure within the valid ranges, with the usual decimals', async () => {
    sim().setOptions({ revise: { share: 1 } });
    const first = await weather();
    const second = await weather();
    expect(changedHours(first, second)).toHaveLength(first.length);
    for (const [i, revised] of second.entries()) {
      const original = first[i]!;
      expect(revised.temperature).toBeCloseTo((original.temperature as number) + 0.7, 6);
      expect(revised.apparentTemperature).toBeCloseTo(
        (original.apparentTemperature as number) + 0.7,
        6,
      );
      expect(Math.abs((revised.humidity as number) - (original.humidity as number))).toBeCloseTo(
        0.02,
        6,
      );
      expect(revised.humidity).toBeGreaterThan(0);
      expect(revised.humidity).toBeLessThan(1);
      expect(revised.dewPoint as number).toBeLessThanOrEqual(revised.temperature as number);
      expect(revised.pressure).toBeCloseTo((original.pressure as number) + 0.3, 6);
      for (const key of [
        'temperature',
        'apparentTemperature',
        'dewPoint',
        'humidity',
        'pressure',
      ]) {
        expect(twoDecimals(revised[key] as number)).toBe(true);
      }
      const revisedKeys = [
        'temperature',
        'apparentTemperature',
        'dewPoint',
        'humidity',
        'pressure',
      ];
      const unchanged = (r: WeatherRecord) =>
        Object.fromEntries(Object.entries(r).filter(([key]) => !revisedKeys.includes(key)));
      const rest = unchanged(revised);
      const same = unchanged(original);
      expect(rest).toEqual(same);
    }
  });

  it('revises hours answered before the option was set, and only those', async () => {
    const original = await weather();
    sim().setOptions({ revise: REVISE });
    const revised = await weather();
    expect(changedHours(original, revised)).toEqual(predicted(original, REVISE));

    // A window half read before: only its read half is revised.
    const later = `/weather/history/by-lat-lng?${historyQuery(lat, lng, '2024-06-21T00:00:00Z', '2024-06-22T23:00:00Z')}&units=si`;
    const overlap = await weather(later);
    sim().setOptions({ revise: null });
    const plain = await weather(later);
    const readBefore = predicted(original, REVISE).filter(
      (h) => h >= Date.parse('2024-06-21T00:00:00Z') / 3_600_000,
    );
    expect(readBefore.length).toBeGreaterThan(0);
    expect(changedHours(plain, overlap)).toEqual(readBefore);
  });

  it('changes nothing with share 0', async () => {
    sim().setOptions({ revise: { share: 0 } });
    const first = await weather();
    expect(await weather()).toEqual(first);
  });

  it('revises other hours with another seed, and every hour first as it was after forgetServedHours', async () => {
    sim().setOptions({ revise: { share: 0.3, seed: 'other' } });
    const first = await weather();
    const second = await weather();
    expect(changedHours(first, second)).toEqual(predicted(first, { share: 0.3, seed: 'other' }));
    expect(predicted(first, { share: 0.3, seed: 'other' })).not.toEqual(predicted(first, REVISE));
    sim().forgetServedHours();
    expect(await weather()).toEqual(first);
  });
});

describe('revise: pollen history', () => {
  it('raises the counts and species of about `share` of the hours on their second read, keeping records valid', async () => {
    sim().setOptions({ revise: REVISE });
    const first = await pollen();
    const second = await pollen();
    expect(await pollen()).toEqual(second);
    const changed = changedHours(first, second);
    expect(changed).toEqual(predicted(first, REVISE));
    expect(changed.length).toBeGreaterThan(0);

    for (const [i, revised] of second.entries()) {
      const original = first[i]!;
      if (!changed.includes(revised.time / 3600)) continue;
      for (const group of ['Grass', 'Tree', 'Weed'] as const) {
        for (const [name, count] of Object.entries(revised.Species[group])) {
          const before = original.Species[group][name]!;
          expect(count).toBe(before + Math.max(1, Math.round(before * 0.15)));
        }
      }
      expect(revised.Species.Others).toBe(original.Species.Others);
      const groupOf = { tree: 'Tree', grass: 'Grass', weed: 'Weed' } as const;
      for (const type of POLLEN_TYPES) {
        const key = `${type}_pollen`;
        const rise = (r: PollenRecord) =>
          Object.values(r.Species[groupOf[type]]).reduce((a, b) => a + b, 0);
        expect(revised.Count[key]! - original.Count[key]!).toBe(rise(revised) - rise(original));
        expect(Number.isInteger(revised.Count[key]) && revised.Count[key]! >= 0).toBe(true);
        expect(revised.Risk[key]).toBe(pollenRiskOf(type, revised.Count[key]!));
      }
    }
  });

  it('keeps weather and pollen apart: reading one does not make the other revised', async () => {
    sim().setOptions({ revise: { share: 1 } });
    await weather();
    const first = await pollen();
    const second = await pollen();
    expect(changedHours(first, second)).toHaveLength(first.length);
    sim().forgetServedHours();
    await pollen();
    const fresh = await weather();
    sim().setOptions({ revise: null });
    expect(await weather()).toEqual(fresh);
  });
});

describe('revise: the option', () => {
  it('is set, shown and forgotten over the admin endpoint', async () => {
    const set = await client.post('/__admin/options', { revise: { share: 0.5, seed: 'x' } });
    expect(set.status).toBe(200);
    expect(set.json()).toMatchObject({ revise: { share: 0.5, seed: 'x' } });
    expect(sim().options().revise).toEqual({ share: 0.5, seed: 'x' });
    const first = await weather();
    expect(changedHours(first, await weather()).length).toBeGreaterThan(0);
    expect((await client.post('/__admin/reset')).status).toBe(200);
    expect(await weather()).toEqual(first);

    const bad = await client.post('/__admin/options', { revise: { share: 2 } });
    expect(bad.status).toBe(400);
    expect(bad.json<{ message: string }>().message).toContain('revise.share: must be from 0 to 1');
    expect(sim().options().revise).toEqual({ share: 0.5, seed: 'x' });
  });

  it.each([
    [{ share: -0.1 }, 'revise.share: must be from 0 to 1'],
    [{ share: 1.5 }, 'revise.share: must be from 0 to 1'],
    [{ share: Number.NaN }, 'revise.share: must be a number from 0 to 1'],
    [{ share: 0.5, seed: '' }, 'revise.seed'],
    [{ share: 0.5, other: 1 }, 'revise'],
  ])('refuses %o with a clear error', (revise, message) => {
    let thrown: unknown;
    try {
      sim().setOptions({ revise: revise as ReviseOption });
    } catch (error) {
      thrown = error;
    }
    expect(isEnvdataError(thrown) && thrown.code).toBe('VALIDATION_FAILED');
    expect((thrown as Error).message).toContain(message);
    expect(sim().options().revise).toBeNull();
  });

  it('refuses an invalid share at start', async () => {
    await expect(startSimulator({ revise: { share: 2 } })).rejects.toThrow(
      /Invalid simulator options: .*revise\.share: must be from 0 to 1/,
    );
  });
});
