import { describe, expect, it } from 'vitest';
import { stampAtFetch } from '../../src/normalize/stamp-at-fetch.js';
import type { ParseContext } from '../../src/service/parse-envelope.js';
import {
  parseLatestPollenDocument,
  parsePollenDocument,
} from '../../src/service/parse-pollen-body.js';
import {
  parseLatestWeatherDocument,
  parseWeatherDocument,
} from '../../src/service/parse-weather-body.js';
import { RECORDED_WEATHER_HOUR } from '../fixtures/weather-record.js';

const POLLEN_VALUES = {
  timezone: 'Europe/Berlin',
  Count: { grass_pollen: 3, tree_pollen: 41, weed_pollen: 0 },
  Risk: { grass_pollen: 'Low', tree_pollen: 'Moderate', weed_pollen: 'Low' },
};

/** A pollen answer with `records`, as parsed by `parse`. */
function pollen<T>(records: unknown[], parse: (json: unknown, context: ParseContext) => T): T {
  const json = { message: 'success', lat: 52.52, lng: 13.405, data: records };
  return parse(json, { rawBody: JSON.stringify(json) });
}

/** A weather answer whose `data` is `record` (latest) or a history of it. */
function weather<T>(
  record: object,
  history: boolean,
  parse: (json: unknown, context: ParseContext) => T,
): T {
  const json = history
    ? { status: 'success', data: { lat: 52.52, lng: 13.405, history: [record] } }
    : { message: 'success', data: { lat: 52.52, lng: 13.405, ...record } };
  return parse(json, { rawBody: JSON.stringify(json) });
}

const NO_TIMESTAMP = /^no timestamp/;

describe('a record sent without any stamp', () => {
  it('is kept by the latest pollen parser, its values read and `at` undefined', () => {
    const payload = pollen(
      [POLLEN_VALUES, { ...POLLEN_VALUES, updatedAt: null, time: null }],
      parseLatestPollenDocument,
    );
    expect(payload.rejected).toEqual([]);
    expect(payload.records).toHaveLength(2);
    for (const record of payload.records) {
      expect(record.at).toBeUndefined();
      expect(record.counts).toEqual({ grass: 3, tree: 41, weed: 0 });
      expect(record.risks).toEqual({ grass: 'Low', tree: 'Moderate', weed: 'Low' });
      expect(record.timezone).toBe('Europe/Berlin');
    }
  });

  it('is kept by the latest weather parser', () => {
    const payload = weather(RECORDED_WEATHER_HOUR, false, parseLatestWeatherDocument);
    expect(payload.rejected).toEqual([]);
    expect(payload.records).toEqual([{ at: undefined, ...RECORDED_WEATHER_HOUR }]);
  });

  it('is still refused in history and forecast answers (pollen and weather), unplaced', () => {
    const pollenHistory = pollen([POLLEN_VALUES], parsePollenDocument);
    expect(pollenHistory.records).toEqual([]);
    expect(pollenHistory.rejected).toEqual([
      { index: 0, raw: POLLEN_VALUES, reason: expect.stringMatching(NO_TIMESTAMP), at: undefined },
    ]);
    const weatherHistory = weather(RECORDED_WEATHER_HOUR, true, parseWeatherDocument);
    expect(weatherHistory.records).toEqual([]);
    expect(weatherHistory.rejected).toEqual([
      {
        index: 0,
        raw: RECORDED_WEATHER_HOUR,
        reason: expect.stringMatching(NO_TIMESTAMP),
        at: undefined,
      },
    ]);
  });
});

describe('the latest parsers', () => {
  it('still refuse a stamp that is present but unreadable', () => {
    const unreadable = [
      { ...POLLEN_VALUES, updatedAt: 'yesterday' },
      { ...POLLEN_VALUES, time: 1_730_419_200_000 },
      { ...POLLEN_VALUES, timestamp: '2024-02-30T00:00:00Z' },
    ];
    const payload = pollen(unreadable, parseLatestPollenDocument);
    expect(payload.records).toEqual([]);
    expect(payload.rejected.map((r) => [r.index, r.reason])).toEqual([
      [0, expect.stringMatching(/updatedAt is not a readable instant/)],
      [1, expect.stringMatching(/time is epoch milliseconds, not seconds/)],
      [2, expect.stringMatching(/timestamp is not a readable instant/)],
    ]);
    const weatherPayload = weather(
      { ...RECORDED_WEATHER_HOUR, time: 'now' },
      false,
      parseLatestWeatherDocument,
    );
    expect(weatherPayload.records).toEqual([]);
    expect(weatherPayload.rejected[0]?.reason).toMatch(/time is not a readable instant/);
  });

  it('read a stamped reading as the other parsers do', () => {
    const stamped = [{ ...POLLEN_VALUES, updatedAt: '2024-11-01T10:20:00Z' }];
    expect(pollen(stamped, parseLatestPollenDocument)).toEqual(
      pollen(stamped, parsePollenDocument),
    );
    const record = { ...RECORDED_WEATHER_HOUR, time: 1_657_000_000 };
    expect(weather(record, false, parseLatestWeatherDocument)).toEqual(
      weather(record, false, parseWeatherDocument),
    );
  });
});

describe('stampAtFetch', () => {
  it('gives a stampless reading the UTC hour of the fetch and says so; a stamped one stays as sent', () => {
    const payload = pollen(
      [POLLEN_VALUES, { ...POLLEN_VALUES, updatedAt: '2024-11-01T08:59:00Z' }],
      parseLatestPollenDocument,
    );
    const stamped = stampAtFetch(payload, new Date('2024-11-01T09:41:17.250Z'));
    expect(stamped.records.map((r) => [r.at.toISOString(), r.stampedAtFetch])).toEqual([
      ['2024-11-01T09:00:00.000Z', true],
      ['2024-11-01T08:59:00.000Z', undefined],
    ]);
    expect(stamped.records[0]?.counts).toEqual(payload.records[0]?.counts);
    expect(stamped.rawBody).toBe(payload.rawBody);
  });
});
