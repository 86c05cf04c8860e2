import { describe, expect, it } from 'vitest';
import { mapWeatherIcon } from '../../src/normalize/map-weather-icon.js';
import { normalizeWeather } from '../../src/normalize/normalize-weather.js';
import { parseWeatherBody } from '../../src/service/parse-weather-body.js';
import { RECORDED_WEATHER_HOUR } from '../fixtures/weather-record.js';

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
