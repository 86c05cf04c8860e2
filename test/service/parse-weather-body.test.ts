import { describe, expect, it } from 'vitest';
import { parseWeatherBody } from '../../src/service/parse-weather-body.js';
import { ServiceError } from '../../src/service/service-error.js';
import { RECORDED_WEATHER_HOUR } from '../fixtures/weather-record.js';
import { readFixture } from './read-fixture.js';

const parseFixture = (name: string) => parseWeatherBody(readFixture(name));

describe('parseWeatherBody', () => {
  it('reads latest, whose data is one object, as a payload with one record', () => {
    const payload = parseFixture('weather-latest.json');
    expect(payload.lat).toBe(52.52);
    expect(payload.lng).toBe(13.405);
    expect(payload.rejected).toEqual([]);
    expect(payload.records).toEqual([
      { at: new Date(1_657_000_000_000), ...RECORDED_WEATHER_HOUR },
    ]);
  });

  it('accepts "Success", string coordinates and time, percentages as sent, missing keys as undefined', () => {
    const payload = parseFixture('weather-latest-legacy.json');
    expect(payload.lat).toBe(52.52);
    expect(payload.lng).toBe(13.405);
    const [record] = payload.records;
    expect(record?.at.toISOString()).toBe('2022-07-05T05:46:40.000Z');
    expect(record?.humidity).toBe(65);
    expect(record?.cloudCover).toBe(40);
    expect(record?.icon).toBe('clear-night');
    expect(record?.uvIndex).toBeUndefined();
    expect(record?.precipType).toBeUndefined();
  });

  it('reads history under a `status` envelope and data.history', () => {
    const payload = parseFixture('weather-history.json');
    expect(payload.lat).toBe(52.52);
    expect(payload.records.map((r) => [r.at.toISOString(), r.temperature])).toEqual([
      ['2020-07-13T12:20:00.000Z', 18.2],
      ['2020-07-13T13:20:00.000Z', 19.2],
      ['2020-07-13T14:20:00.000Z', 20.2],
    ]);
  });

  it('reads history with a `message` envelope and a bare data array', () => {
    const payload = parseFixture('weather-history-bare-array.json');
    expect(payload.records).toHaveLength(3);
    expect(payload.lat).toBeUndefined();
    expect(payload.records[2]?.temperature).toBe(20.2);
  });

  it('reads the forecast under data.forecast: 72 hourly records', () => {
    const payload = parseFixture('weather-forecast.json');
    expect(payload.records).toHaveLength(72);
    expect(payload.records[71]?.at.toISOString()).toBe('2024-11-13T23:00:00.000Z');
  });

  it('reads a forecast whose data is a bare array', () => {
    expect(parseFixture('weather-forecast-bare-array.json').records).toHaveLength(2);
  });

  it('rejects records with a non-numeric measurement, no stamp or a non-string icon', () => {
    const payload = parseFixture('weather-rejects.json');
    expect(payload.records.map((r) => r.at.toISOString())).toEqual([
      '2020-07-13T12:20:00.000Z',
      '2020-07-13T15:20:00.000Z',
    ]);
    expect(payload.records[1]?.humidity).toBeUndefined();
    expect(payload.records[1]?.windGust).toBeUndefined();
    expect(payload.rejected.map((r) => [r.index, r.reason])).toEqual([
      [1, 'temperature is not a number: "warm"'],
      [2, 'no timestamp (expected one of time, timestamp, updatedAt, createdAt)'],
      [3, 'icon is not a string: 7'],
    ]);
  });

  it('reads a "Data not available!" body as zero records', () => {
    expect(parseFixture('no-data.json').records).toEqual([]);
  });

  it('raises MALFORMED_RESPONSE when data.history is not an array', () => {
    const body = '{"status":"success","data":{"history":{"time":1}}}';
    expect(() => parseWeatherBody(body)).toThrow(ServiceError);
    expect(() => parseWeatherBody(body)).toThrow(/data.history/);
  });
});
