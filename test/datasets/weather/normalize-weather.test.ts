import { describe, expect, it } from 'vitest';
import { mapWeatherIcon } from '../../../src/datasets/weather/map-weather-icon.js';
import {
  normalizeWeather,
  weatherShareUnit,
} from '../../../src/datasets/weather/normalize-weather.js';
import type { WeatherRow } from '../../../src/datasets/weather/weather-rows.js';
import type { WeatherPayload } from '../../../src/service/models.js';
import { parseWeatherBody } from '../../../src/service/parse-weather-body.js';
import { RECORDED_WEATHER_HOUR } from '../../fixtures/weather-record.js';

const epoch = (iso: string) => Date.parse(iso) / 1000;
// Apparent temperature unlike the temperature, so that a mix-up of the two shows.
const base = { ...RECORDED_WEATHER_HOUR, apparentTemperature: 20.5 };
const window = { from: new Date('2020-07-13T00:00:00Z'), to: new Date('2020-07-15T00:00:00Z') };

describe('normalizeWeather', () => {
  it('maps the history envelope (status, data.history) to SI rows with the icon mapped', () => {
    const body = JSON.stringify({
      status: 'success',
      data: {
        lat: 52.52,
        lng: 13.405,
        history: [{ time: epoch('2020-07-13T12:00:00Z'), ...base }],
      },
    });
    const out = normalizeWeather(parseWeatherBody(body), window);
    expect(out.rows).toEqual([
      {
        observedAt: new Date('2020-07-13T12:00:00Z'),
        temperatureC: 21.1,
        apparentTemperatureC: 20.5,
        dewPointC: 14.2,
        humidityFraction: 0.65,
        pressureHpa: 1011,
        windSpeedMs: 3.2,
        windGustMs: 6.06,
        windBearingDeg: 258,
        cloudCoverFraction: 0.4,
        visibilityKm: 10,
        uvIndex: 3,
        ozoneDu: 316.52,
        precipIntensityMmH: 0,
        precipProbabilityFraction: 0,
        precipType: 'rain',
        summary: 'Partly Cloudy',
        icon: 'partly-cloudy',
        iconRaw: 'partly-cloudy-day',
      },
    ]);
  });

  it('reads the bare-array variant and converts percentages to fractions', () => {
    const body = JSON.stringify({
      message: 'Success',
      data: [
        {
          time: epoch('2020-07-14T01:00:00Z'),
          ...base,
          humidity: 65,
          cloudCover: 100,
          precipProbability: 30,
        },
      ],
    });
    const [row] = normalizeWeather(parseWeatherBody(body), window).rows;
    expect(row?.humidityFraction).toBeCloseTo(0.65);
    expect(row?.cloudCoverFraction).toBe(1);
    expect(row?.precipProbabilityFraction).toBeCloseTo(0.3);
  });

  it('reads 1 as 1 % in an answer of integer percentages, never per value as 100 %', () => {
    const payload = sharesAnswer([1, 1, 1], [64, 0, 0]);
    expect(weatherShareUnit(payload)).toBe('percent');
    const out = normalizeWeather(payload, window);
    expect(out.quarantined).toEqual([]);
    expect(landedShares(out.rows)).toEqual([
      [0.01, 0.01, 0.01],
      [0.64, 0, 0],
    ]);
  });

  it('reads 1 as 100 % in an answer of fractions', () => {
    const out = normalizeWeather(sharesAnswer([1, 1, 1], [0.64, 0, 0]), window);
    expect(landedShares(out.rows)).toEqual([
      [1, 1, 1],
      [0.64, 0, 0],
    ]);
  });

  it('reads an answer that cannot tell in the remembered unit, and only then', () => {
    const payload = sharesAnswer([1, 1, 0]);
    expect(weatherShareUnit(payload)).toBe('cannot-tell');
    expect(landedShares(normalizeWeather(payload, window, 'percent').rows)).toEqual([
      [0.01, 0.01, 0],
    ]);
    expect(landedShares(normalizeWeather(payload, window, 'fraction').rows)).toEqual([[1, 1, 0]]);
    // An answer that tells its own unit is read in it, whatever was remembered.
    const told = sharesAnswer([1, 55, 0]);
    expect(landedShares(normalizeWeather(told, window, 'fraction').rows)).toEqual([
      [0.01, 0.55, 0],
    ]);
  });

  it('lands the other values and quarantines the shares of an answer that cannot tell, with nothing remembered', () => {
    const out = normalizeWeather(sharesAnswer([1, 0, 0], []), window);
    expect(out.rows.map((r) => r.temperatureC)).toEqual([21.1, 21.1]);
    expect(landedShares(out.rows)).toEqual([
      [null, null, null],
      [null, null, null],
    ]);
    // The record without shares sets nothing aside; the hour with shares is named.
    expect(out.quarantined).toEqual([
      {
        recordIndex: 0,
        raw: expect.objectContaining({ humidity: 1 }),
        hour: new Date('2020-07-13T01:00:00Z'),
        reason: expect.stringMatching(
          /^share unit unknown: humidity 1, cloudCover 0, precipProbability 0 not landed \(every share of the answer is 0 or 1/,
        ),
      },
    ]);
    expect(out.quarantinedHours.size).toBe(0);
  });

  it('never reads an answer that contradicts itself, not even in a remembered unit', () => {
    const payload = sharesAnswer([0.81, 40, 0], [0.8, 0.2, 0]);
    expect(weatherShareUnit(payload)).toBe('contradictory');
    const out = normalizeWeather(payload, window, 'fraction');
    expect(out.rows.map((r) => r.temperatureC)).toEqual([21.1, 21.1]);
    expect(landedShares(out.rows)).toEqual([
      [null, null, null],
      [null, null, null],
    ]);
    expect(out.quarantined.map((q) => q.reason)).toEqual([
      expect.stringMatching(
        /^share unit unknown: humidity 0.81, cloudCover 40, precipProbability 0 not landed \(the answer has shares above 1/,
      ),
      expect.stringMatching(
        /^share unit unknown: humidity 0.8, cloudCover 0.2, precipProbability 0/,
      ),
    ]);
  });

  it('quarantines implausible records and keeps the others', () => {
    const body = JSON.stringify({
      status: 'success',
      data: {
        history: [
          { time: epoch('2020-07-13T01:00:00Z'), ...base },
          { time: epoch('2020-07-13T02:00:00Z'), ...base, temperature: 180 },
          { time: epoch('2020-07-13T03:00:00Z'), ...base, humidity: 250 },
        ],
      },
    });
    const out = normalizeWeather(parseWeatherBody(body), window);
    expect(out.rows).toHaveLength(1);
    expect(out.quarantined.map((q) => q.reason)).toEqual([
      expect.stringContaining('temperature'),
      expect.stringContaining('humidity'),
    ]);
  });

  it('maps day/night icons and synonyms to the six interface values', () => {
    expect(mapWeatherIcon('clear-night')).toBe('clear');
    expect(mapWeatherIcon('partly-cloudy-night')).toBe('partly-cloudy');
    expect(mapWeatherIcon('sleet')).toBe('snow');
    expect(mapWeatherIcon('fog')).toBe('fog');
    expect(mapWeatherIcon('tornado')).toBeNull();
    expect(mapWeatherIcon(undefined)).toBeNull();
  });
});

/**
 * A history answer of `base` records an hour apart from 2020-07-13 01:00 UTC, each with the
 * humidity, cloud cover and precipitation probability given (`[]`: none of the three).
 */
function sharesAnswer(...shares: readonly (readonly number[])[]): WeatherPayload {
  const history = shares.map(([humidity, cloudCover, precipProbability], i) => ({
    ...base,
    time: epoch('2020-07-13T01:00:00Z') + i * 3600,
    humidity,
    cloudCover,
    precipProbability,
  }));
  return parseWeatherBody(historyBody(history));
}

function landedShares(rows: readonly WeatherRow[]): (number | null)[][] {
  return rows.map((r) => [r.humidityFraction, r.cloudCoverFraction, r.precipProbabilityFraction]);
}

function historyBody(history: readonly object[]): string {
  return JSON.stringify({ status: 'success', data: { lat: 52.52, lng: 13.405, history } });
}
