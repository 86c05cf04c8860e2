import { describe, expect, it } from 'vitest';
import { mapWeatherIcon } from '../../../src/datasets/weather/map-weather-icon.js';
import {
  normalizeWeather,
  weatherShareUnits,
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

  it('reads 1 as 1 % in a field of integer percentages, never per value as 100 %', () => {
    const payload = sharesAnswer([1, 1, 1], [64, 40, 30]);
    expect(weatherShareUnits(payload)).toEqual({
      humidity: 'percent',
      cloudCover: 'percent',
      precipProbability: 'percent',
    });
    const out = normalizeWeather(payload, window);
    expect(out.quarantined).toEqual([]);
    expect(landedShares(out.rows)).toEqual([
      [0.01, 0.01, 0.01],
      [0.64, 0.4, 0.3],
    ]);
  });

  it('reads 1 as 100 % in a field of fractions', () => {
    const out = normalizeWeather(sharesAnswer([1, 1, 1], [0.64, 0.5, 0.2]), window);
    expect(landedShares(out.rows)).toEqual([
      [1, 1, 1],
      [0.64, 0.5, 0.2],
    ]);
  });

  it('decides each field by its own values: humidity 81 beside cloud cover 0.83 and precipitation 0.02', () => {
    // The documented record (real-bodies/weather-latest__docs-example-react-comment__1.json).
    const payload = sharesAnswer([81, 0.83, 0.02]);
    expect(weatherShareUnits(payload)).toEqual({
      humidity: 'percent',
      cloudCover: 'fraction',
      precipProbability: 'fraction',
    });
    const out = normalizeWeather(payload, window);
    expect(out.quarantined).toEqual([]);
    expect(landedShares(out.rows)).toEqual([[0.81, 0.83, 0.02]]);
  });

  it('never reads cloud cover 1 in the unit of the humidity beside it', () => {
    // The live capture (real-bodies/weather-latest__breathe-easy__1.json): humidity 92 %,
    // overcast. cloudCover 1 cannot tell by itself: read in its own remembered unit, else set aside.
    const payload = sharesAnswer([92, 1, 0]);
    expect(weatherShareUnits(payload)).toEqual({
      humidity: 'percent',
      cloudCover: 'cannot-tell',
      precipProbability: 'only-zeros',
    });
    expect(
      landedShares(normalizeWeather(payload, window, { cloudCover: 'fraction' }).rows),
    ).toEqual([[0.92, 1, 0]]);
    const alone = normalizeWeather(payload, window);
    expect(landedShares(alone.rows)).toEqual([[0.92, null, 0]]);
    expect(alone.quarantined.map((q) => q.reason)).toEqual([
      expect.stringMatching(
        /^share unit unknown: cloudCover 1 not landed \(every value of the field/,
      ),
    ]);
  });

  it('reads a field that cannot tell in its remembered unit, and only then', () => {
    const payload = sharesAnswer([1, 1, 0]);
    expect(weatherShareUnits(payload)).toEqual({
      humidity: 'cannot-tell',
      cloudCover: 'cannot-tell',
      precipProbability: 'only-zeros',
    });
    const percent = { humidity: 'percent', cloudCover: 'percent' } as const;
    const fraction = { humidity: 'fraction', cloudCover: 'fraction' } as const;
    expect(landedShares(normalizeWeather(payload, window, percent).rows)).toEqual([
      [0.01, 0.01, 0],
    ]);
    expect(landedShares(normalizeWeather(payload, window, fraction).rows)).toEqual([[1, 1, 0]]);
    // A field that tells its own unit is read in it, whatever was remembered for it.
    const told = sharesAnswer([1, 55, 0]);
    expect(landedShares(normalizeWeather(told, window, fraction).rows)).toEqual([[1, 0.55, 0]]);
  });

  it('lands the other values and quarantines only the undecided values, with nothing remembered', () => {
    const out = normalizeWeather(sharesAnswer([1, 0, 0], []), window);
    expect(out.rows.map((r) => r.temperatureC)).toEqual([21.1, 21.1]);
    // A 0 is 0 in both units: it lands.
    expect(landedShares(out.rows)).toEqual([
      [null, 0, 0],
      [null, null, null],
    ]);
    // The record without shares sets nothing aside; the hour with a share set aside is named.
    expect(out.quarantined).toEqual([
      {
        recordIndex: 0,
        raw: expect.objectContaining({ humidity: 1 }),
        hour: new Date('2020-07-13T01:00:00Z'),
        reason: expect.stringMatching(
          /^share unit unknown: humidity 1 not landed \(every value of the field in the answer is 0 or 1/,
        ),
      },
    ]);
    expect(out.quarantinedHours.size).toBe(0);
  });

  it('never reads a field that contradicts itself, not even in a remembered unit, and reads the others', () => {
    const payload = sharesAnswer([0.81, 40, 0], [0.8, 20, 0]);
    expect(weatherShareUnits(payload)).toMatchObject({
      humidity: 'fraction',
      cloudCover: 'percent',
    });
    const mixed = sharesAnswer([0.81, 40, 0], [80, 20, 0]);
    expect(weatherShareUnits(mixed).humidity).toBe('contradictory');
    const out = normalizeWeather(mixed, window, { humidity: 'fraction' });
    expect(out.rows.map((r) => r.temperatureC)).toEqual([21.1, 21.1]);
    expect(landedShares(out.rows)).toEqual([
      [null, 0.4, 0],
      [null, 0.2, 0],
    ]);
    expect(out.quarantined.map((q) => q.reason)).toEqual([
      expect.stringMatching(
        /^share unit unknown: humidity 0.81 not landed \(the field has values above 1/,
      ),
      expect.stringMatching(/^share unit unknown: humidity 80 not landed/),
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
