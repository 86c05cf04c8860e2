import { beforeEach, describe, expect, it } from 'vitest';
import { parseSimulatorEnvironment } from '../../src/cli/simulator-environment.js';
import type { PollenPayload, WeatherPayload } from '../../src/service/models.js';
import { parsePollenBody } from '../../src/service/parse-pollen-body.js';
import { parseWeatherBody } from '../../src/service/parse-weather-body.js';
import { parseFaultSpec } from '../../src/simulator/faults/parse-fault-spec.js';
import { DATA_NOT_AVAILABLE_BODY } from '../../src/simulator/render/response-text.js';
import {
  historyQuery,
  PLACES,
  serviceTime,
  type SimpleResponse,
  useTestSimulator,
} from './simulator-http.js';

const { sim, client } = useTestSimulator();

/** A 48-hour window well before the frozen clock: every hour of it has data. */
const FROM = '2024-04-20T00:00:00Z';
const TO = '2024-04-22T00:00:00Z';
const WINDOW_HOURS = 48;
const FROM_S = Date.parse(FROM) / 1000;
const { lat, lng } = PLACES.berlin;
const range = `from=${serviceTime(FROM)}&to=${serviceTime(TO)}`;

/** The three history endpoints, each with how to read its answer with the client's own parser. */
const DATASETS = [
  {
    name: 'pollen history by coordinates',
    path: `/history/pollen/by-lat-lng?${historyQuery(lat, lng, FROM, TO)}`,
    parse: (res: SimpleResponse): PollenPayload => parsePollenBody(res.text),
  },
  {
    name: 'pollen history by place',
    path: `/history/pollen/by-place?place=Berlin&${range}`,
    parse: (res: SimpleResponse): PollenPayload => parsePollenBody(res.text),
  },
  {
    name: 'weather history',
    path: `/weather/history/by-lat-lng?${historyQuery(lat, lng, FROM, TO)}&units=si`,
    parse: (res: SimpleResponse): WeatherPayload => parseWeatherBody(res.text),
  },
] as const;
const [POLLEN, POLLEN_BY_PLACE, WEATHER] = DATASETS;
const LATEST = `/latest/pollen/by-lat-lng?lat=${lat}&lng=${lng}`;

/** Epoch seconds of the window's hours `first` … `first + count - 1`. */
function windowHours(count: number, first = 0): number[] {
  return Array.from({ length: count }, (_, i) => FROM_S + (first + i) * 3600);
}

/** The record instants of a payload the client's parser read, asserting it rejected none. */
function hoursOf(payload: PollenPayload | WeatherPayload): number[] {
  expect(payload.rejected).toEqual([]);
  return payload.records.map((record) => record.at.getTime() / 1000);
}

type PollenJson = {
  message: string;
  data: { Count: Record<string, number>; Species?: Record<string, unknown> }[];
};
type WeatherJson = {
  status: string;
  data: { lat: number; lng: number; history: Record<string, unknown>[] };
};

beforeEach(() => {
  sim().clearFaults();
  sim().resetStats();
  sim().setOptions({ legacyShapes: false });
});

describe('short: a success answer without the last N hours of the window', () => {
  it.each(DATASETS)('rule form, $name', async ({ path, parse }) => {
    sim().setFaults('history:short=6@100%');
    for (let i = 0; i < 2; i++) {
      const res = await client.get(path);
      expect(res.status).toBe(200);
      expect(hoursOf(parse(res))).toEqual(windowHours(WINDOW_HOURS - 6));
    }
    expect(sim().stats().byStatus).toEqual({ '200': 2 });
    expect(sim().stats().faults).toEqual({ short: 2 });
  });

  it.each(DATASETS)('script form, $name: the next call only', async ({ path, parse }) => {
    sim().setFaults('history:short=5x1');
    expect(hoursOf(parse(await client.get(path)))).toEqual(windowHours(WINDOW_HOURS - 5));
    expect(hoursOf(parse(await client.get(path)))).toEqual(windowHours(WINDOW_HOURS));
  });

  it('drops one hour by default', async () => {
    sim().setFaults('weather-history:short x1');
    expect(hoursOf(WEATHER.parse(await client.get(WEATHER.path)))).toEqual(windowHours(47));
  });

  it.each([48, 10_000])(
    'with N=%i (at least the window) answers success with no records, not "Data not available!"',
    async (n) => {
      sim().setFaults(`history:short=${n}x2`);
      const pollen = await client.get(POLLEN.path);
      expect(pollen.status).toBe(200);
      expect(pollen.json<PollenJson>()).toMatchObject({ message: 'success', data: [] });
      expect(hoursOf(POLLEN.parse(pollen))).toEqual([]);
      const weather = await client.get(WEATHER.path);
      expect(weather.json<WeatherJson>()).toEqual({
        status: 'success',
        data: { lat: expect.any(Number), lng: expect.any(Number), history: [] },
      });
    },
  );
});

describe('empty: the success envelope with zero records', () => {
  it('script form: pollen `data: []`, weather `data.history: []`', async () => {
    sim().setFaults('history:empty x3');
    const pollen = await client.get(POLLEN.path);
    expect(pollen.status).toBe(200);
    expect(pollen.json()).toEqual({ message: 'success', lat, lng, data: [] });
    expect(pollen.text).not.toBe(DATA_NOT_AVAILABLE_BODY);
    expect(hoursOf(POLLEN_BY_PLACE.parse(await client.get(POLLEN_BY_PLACE.path)))).toEqual([]);
    const weather = await client.get(WEATHER.path);
    expect(weather.json()).toEqual({ status: 'success', data: { lat, lng, history: [] } });
    expect(hoursOf(WEATHER.parse(await client.get(WEATHER.path)))).toHaveLength(WINDOW_HOURS);
  });

  it.each(DATASETS)('rule form, $name', async ({ path, parse }) => {
    sim().setFaults('all:empty@100%');
    const res = await client.get(path);
    expect(res.status).toBe(200);
    expect(parse(res).records).toEqual([]);
    expect(sim().stats()).toMatchObject({ byStatus: { '200': 1 }, faults: { empty: 1 } });
  });

  it('leaves the documented "Data not available!" answer as it is', async () => {
    sim().setFaults('history:empty@100%');
    const before = historyQuery(lat, lng, '2015-06-01T00:00:00Z', '2015-06-02T00:00:00Z');
    const res = await client.get(`/history/pollen/by-lat-lng?${before}`);
    expect(res.text).toBe(DATA_NOT_AVAILABLE_BODY);
  });
});

describe('ambiguous: every share of the answer 0 or 1, in its own unit', () => {
  const SHARES = ['humidity', 'cloudCover', 'precipProbability'] as const;

  it.each([false, true])(
    'weather history (percentages %s): humidity and cloud cover 1, precipitation probability 0, the rest as without it',
    async (percentages) => {
      sim().setOptions({ legacyShapes: { percentages } });
      const clean = (await client.get(WEATHER.path)).json<WeatherJson>().data.history;
      sim().setFaults('weather-history:ambiguous x1');
      const faulty = (await client.get(WEATHER.path)).json<WeatherJson>().data.history;
      expect(faulty).toHaveLength(WINDOW_HOURS);
      faulty.forEach((record, i) => {
        expect(SHARES.map((f) => record[f])).toEqual([1, 1, 0]);
        const { humidity: _h, cloudCover: _c, precipProbability: _p, ...rest } = clean[i]!;
        expect(record).toMatchObject(rest);
      });
      expect(sim().stats().faults).toEqual({ ambiguous: 1 });
      // Spent: the next answer is the clean one.
      expect((await client.get(WEATHER.path)).json<WeatherJson>().data.history).toEqual(clean);
    },
  );

  it('a broad selector leaves pollen history alone and is not spent on it', async () => {
    const clean = (await client.get(POLLEN.path)).text;
    sim().setFaults('history:ambiguous x1');
    expect((await client.get(POLLEN.path)).text).toBe(clean);
    const weather = (await client.get(WEATHER.path)).json<WeatherJson>().data.history;
    expect(weather.every((r) => r.humidity === 1 && r.precipProbability === 0)).toBe(true);
  });
});

describe('conflict: the first hours repeated at the end with different values', () => {
  it('script form, weather: temperature +3.5 °C and humidity moved by 0.2', async () => {
    sim().setFaults('weather-history:conflict x2');
    for (let i = 0; i < 2; i++) {
      const res = await client.get(WEATHER.path);
      expect(res.status).toBe(200);
      const payload = WEATHER.parse(res);
      expect(hoursOf(payload)).toEqual([...windowHours(WINDOW_HOURS), FROM_S]);
      const [first] = payload.records;
      const copy = payload.records[WINDOW_HOURS];
      expect(copy!.temperature! - first!.temperature!).toBeCloseTo(3.5, 6);
      expect(Math.abs(copy!.humidity! - first!.humidity!)).toBeCloseTo(0.2, 6);
      expect(copy!.humidity).toBeGreaterThanOrEqual(0);
      expect(copy!.humidity).toBeLessThanOrEqual(1);
      expect({ ...copy, temperature: 0, humidity: 0 }).toEqual({
        ...first,
        temperature: 0,
        humidity: 0,
      });
    }
    expect(hoursOf(WEATHER.parse(await client.get(WEATHER.path)))).toHaveLength(WINDOW_HOURS);
    expect(sim().stats().faults).toEqual({ conflict: 2 });
  });

  it.each([POLLEN, POLLEN_BY_PLACE])(
    'rule form, $name: every Count +7, every species count +1, risks that follow',
    async ({ path, parse }) => {
      sim().setFaults('pollen-history:conflict=3@100%');
      const res = await client.get(path);
      const payload = parse(res);
      expect(hoursOf(payload)).toEqual([...windowHours(WINDOW_HOURS), ...windowHours(3)]);
      for (let i = 0; i < 3; i++) {
        const original = payload.records[i]!;
        const copy = payload.records[WINDOW_HOURS + i]!;
        expect(copy.counts).toEqual({
          tree: original.counts.tree! + 7,
          grass: original.counts.grass! + 7,
          weed: original.counts.weed! + 7,
        });
        expect(original.species!.length).toBeGreaterThan(0);
        expect(copy.species).toEqual(original.species!.map((s) => ({ ...s, count: s.count + 1 })));
        expect(copy.othersCount).toBe(original.othersCount! + 1);
        expect(copy.timezone).toBe(original.timezone);
      }
      // The raw copy differs from its original in its values only.
      const data = res.json<PollenJson>().data;
      expect(Object.keys(data[WINDOW_HOURS]!)).toEqual(Object.keys(data[0]!));
    },
  );

  it('script form, pollen: one conflicting hour by default', async () => {
    sim().setFaults('history:conflict x1');
    const hours = hoursOf(POLLEN.parse(await client.get(POLLEN.path)));
    expect(hours).toEqual([...windowHours(WINDOW_HOURS), FROM_S]);
  });

  it('rule form, weather: N larger than the window repeats every hour once', async () => {
    sim().setFaults('weather-history:conflict=100@1');
    const hours = hoursOf(WEATHER.parse(await client.get(WEATHER.path)));
    expect(hours).toEqual([...windowHours(WINDOW_HOURS), ...windowHours(WINDOW_HOURS)]);
  });
});

describe('duplicate: the first hours repeated identically', () => {
  it.each(DATASETS)('script form, $name', async ({ path }) => {
    sim().setFaults('history:duplicate=2x1');
    const res = await client.get(path);
    const data = res.json<PollenJson | WeatherJson>().data;
    const records = Array.isArray(data) ? data : data.history;
    expect(records).toHaveLength(WINDOW_HOURS + 2);
    expect(records.slice(WINDOW_HOURS)).toEqual(records.slice(0, 2));
  });

  it('rule form, weather', async () => {
    sim().setFaults('weather:duplicate@100%');
    const hours = hoursOf(WEATHER.parse(await client.get(WEATHER.path)));
    expect(hours).toEqual([...windowHours(WINDOW_HOURS), FROM_S]);
  });
});

describe('record faults with every older response shape', () => {
  beforeEach(() => {
    sim().setOptions({ legacyShapes: true });
  });

  it.each(DATASETS)('short, empty, conflict and duplicate on $name', async ({ path, parse }) => {
    sim().setFaults(
      'history:short=4x1; history:empty x1; history:conflict=2x1; history:duplicate x1',
    );
    expect(hoursOf(parse(await client.get(path)))).toEqual(windowHours(WINDOW_HOURS - 4));
    const empty = await client.get(path);
    expect(empty.status).toBe(200);
    // Legacy pollen and weather alike: `message: "Success"` and a bare `data` array.
    expect(empty.json()).toMatchObject({ message: 'Success', data: [] });
    expect(parse(empty).records).toEqual([]);
    const conflict = parse(await client.get(path));
    expect(hoursOf(conflict)).toEqual([...windowHours(WINDOW_HOURS), ...windowHours(2)]);
    expect(conflict.records[WINDOW_HOURS]).not.toEqual(conflict.records[0]);
    const duplicate = parse(await client.get(path));
    expect(hoursOf(duplicate)).toEqual([...windowHours(WINDOW_HOURS), FROM_S]);
    expect(duplicate.records[WINDOW_HOURS]).toEqual(duplicate.records[0]);
  });

  it('weather conflict in percentages moves humidity by 20 points', async () => {
    sim().setFaults('weather-history:conflict x1');
    const { records } = WEATHER.parse(await client.get(WEATHER.path));
    expect(Math.abs(records[WINDOW_HOURS]!.humidity! - records[0]!.humidity!)).toBe(20);
  });
});

describe('record faults and other endpoints', () => {
  it('match only the history endpoints a broad selector names, without spending scripts', async () => {
    sim().setFaults('all:short=2x1; pollen:empty@100%');
    const latest = await client.get(LATEST);
    expect(latest.status).toBe(200);
    expect(latest.json<PollenJson>().data).toHaveLength(1);
    expect(sim().faults().scripts).toEqual([
      { endpoint: 'all', kind: 'short', hours: 2, count: 1, remaining: 1 },
    ]);
    // The script comes first, then the rule takes the next pollen history call.
    expect(hoursOf(POLLEN.parse(await client.get(POLLEN.path)))).toEqual(windowHours(46));
    expect(POLLEN.parse(await client.get(POLLEN.path)).records).toEqual([]);
    expect(sim().stats().faults).toEqual({ short: 1, empty: 1 });
    expect(sim().stats().byStatus).toEqual({ '200': 3 });
  });

  it('leave error answers as they are', async () => {
    sim().setFaults('history:empty x1');
    const res = await client.get(WEATHER.path, { key: 'wrong-key-xyz' });
    expect(res.status).toBe(401);
  });
});

describe('record fault specs', () => {
  it('parse with their hours', () => {
    expect(
      parseFaultSpec('history:short=6@100%; weather-history:conflict x2; pollen-history:empty x1'),
    ).toEqual({
      settings: {
        rules: [{ endpoint: 'history', kind: 'short', hours: 6, rate: 1 }],
        scripts: [
          { endpoint: 'weather-history', kind: 'conflict', count: 2 },
          { endpoint: 'pollen-history', kind: 'empty', count: 1 },
        ],
      },
      problems: [],
    });
  });

  it('read from ENVDATA_SIM_FAULTS', () => {
    const options = parseSimulatorEnvironment({
      ENVDATA_SIM_FAULTS: 'history:short=6@100%; weather-history:duplicate=3x1',
    });
    expect(options.faults).toMatchObject({
      rules: [{ endpoint: 'history', kind: 'short', hours: 6, rate: 1 }],
      scripts: [{ endpoint: 'weather-history', kind: 'duplicate', hours: 3, count: 1 }],
    });
  });

  it.each([
    ['history:short=0x1', 'short=N counts hours: a whole number 1–10000'],
    ['history:conflict=10001@1', 'conflict=N counts hours: a whole number 1–10000'],
    ['history:empty=3x1', 'empty takes no parameter'],
    ['pollen-latest:short=2x1', 'short applies to history endpoints only'],
    ['latest:conflict@10%', 'selector "latest" names none'],
    ['weather-forecast:duplicate x1', 'duplicate applies to history endpoints only'],
    ['pollen-history:ambiguous x1', 'ambiguous applies to weather history only'],
    ['weather-history:ambiguous=3x1', 'ambiguous takes no parameter'],
  ])('refuse %s', (spec, problem) => {
    const { problems } = parseFaultSpec(spec);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });

  it('work through the admin endpoint JSON', async () => {
    const set = await client.post('/__admin/faults', {
      rules: [{ endpoint: 'weather-history', kind: 'short', hours: 3, rate: 1 }],
      scripts: [{ endpoint: 'pollen-history', kind: 'conflict', hours: 2, count: 1 }],
    });
    expect(set.status).toBe(200);
    expect(hoursOf(WEATHER.parse(await client.get(WEATHER.path)))).toEqual(windowHours(45));
    expect(hoursOf(POLLEN.parse(await client.get(POLLEN.path)))).toHaveLength(WINDOW_HOURS + 2);
    expect((await client.post('/__admin/scripts', 'history:empty x1')).status).toBe(200);
    expect(POLLEN.parse(await client.get(POLLEN.path)).records).toEqual([]);
  });

  it.each([
    [{ endpoint: 'history', kind: 'conflict', hours: 0, count: 1 }, 'a whole number 1–10000'],
    [{ endpoint: 'history', kind: 'short', hours: 1.5, count: 1 }, 'a whole number 1–10000'],
    [{ endpoint: 'history', kind: 'short', status: 503, count: 1 }, 'takes hours, not status'],
    [{ endpoint: 'history', kind: 'empty', hours: 2, count: 1 }, 'empty takes no parameter'],
    [{ endpoint: 'history', kind: 'error', hours: 2, count: 1 }, 'error takes no hours'],
    [{ endpoint: 'geocode', kind: 'empty', count: 1 }, 'history endpoints only'],
  ])('are refused by the admin endpoint when wrong: %o', async (script, problem) => {
    const res = await client.post('/__admin/faults', { scripts: [script] });
    expect(res.status).toBe(400);
    expect(res.json<{ message: string }>().message).toContain(problem);
  });
});

describe('hostile records: the first N records rewritten as the contract does not allow', () => {
  /** What the client's parser made of the first two records (the rest stay valid). */
  async function rejectedOf(kind: string, which: (typeof DATASETS)[number]) {
    sim().setFaults(`history:${kind}=2x1`);
    const payload = which.parse(await client.get(which.path));
    expect(payload.records).toHaveLength(WINDOW_HOURS - 2);
    return payload.rejected.map((r) => ({ index: r.index, reason: r.reason, at: r.at }));
  }
  const placed = (i: number) => new Date((FROM_S + i * 3600) * 1000);

  it.each([
    ['nul', 'pollen', /a species name of Species\.Tree contains a NUL character/],
    ['nul', 'weather', /summary contains a NUL character/],
    ['nulvalue', 'pollen', /Risk\.tree_pollen is not a risk level .*\\u0000/],
    ['nulvalue', 'weather', /temperature is not a number: "2\\u00001"/],
    ['long', 'pollen', /a species name of Species\.Tree is a name of 9000 bytes, over the 1024/],
    ['wrongtype', 'pollen', /Count\.tree_pollen is not a number: \[8\]/],
    ['wrongtype', 'weather', /temperature is not a number: true/],
    ['badrisk', 'pollen', /Risk\.tree_pollen is not a risk level .*"Extreme"/],
    ['millis', 'pollen', /time is epoch milliseconds, not seconds/],
    ['millis', 'weather', /time is epoch milliseconds, not seconds/],
  ])('%s on %s: rejected with the reason, placed in its hour', async (kind, dataset, reason) => {
    const rejected = await rejectedOf(kind, dataset === 'pollen' ? POLLEN : WEATHER);
    expect(rejected).toEqual([
      { index: 0, reason: expect.stringMatching(reason), at: placed(0) },
      { index: 1, reason: expect.stringMatching(reason), at: placed(1) },
    ]);
  });

  it('blank: an empty record, rejected and placed in no hour', async () => {
    for (const which of [POLLEN, WEATHER]) {
      expect(await rejectedOf('blank', which)).toEqual([
        { index: 0, reason: expect.stringMatching(/^no timestamp/), at: undefined },
        { index: 1, reason: expect.stringMatching(/^no timestamp/), at: undefined },
      ]);
    }
  });

  it('long on weather: a 9,000-character summary is storable, and kept as sent', async () => {
    sim().setFaults('weather-history:long x1');
    const payload = WEATHER.parse(await client.get(WEATHER.path));
    expect(payload.rejected).toEqual([]);
    expect(payload.records[0]!.summary).toHaveLength(9000);
    expect(payload.records[1]!.summary!.length).toBeLessThan(100);
  });

  it('badrisk matches only pollen history, and a selector naming only weather is refused', async () => {
    sim().setFaults('history:badrisk@100%');
    expect(hoursOf(WEATHER.parse(await client.get(WEATHER.path)))).toHaveLength(WINDOW_HOURS);
    expect(POLLEN.parse(await client.get(POLLEN.path)).rejected).toHaveLength(1);
    expect(parseFaultSpec('weather-history:badrisk x1').problems).toEqual([
      expect.stringContaining('badrisk applies to pollen history endpoints only'),
    ]);
  });
});
