import { describe, expect, it } from 'vitest';
import { CLIMATE_NORMALS } from '../../src/simulator/data/climate-normals.js';
import { historyQuery, useTestSimulator } from './simulator-http.js';

type WeatherData = {
  data: { history: { time: number; temperature: number; precipIntensity: number }[] };
};

/** A simulated year is within this share of the normal's annual precipitation. */
const PRECIPITATION_TOLERANCE = 0.25;
/** A simulated January or July mean is within this many °C of the normal's. */
const TEMPERATURE_TOLERANCE_C = 2.5;
/**
 * Share of hours with precipitation: about 5–10 % at mid-latitudes; the bounds leave room for
 * dry Madrid and for Brisbane's fewer, heavier showers.
 */
const WET_HOURS = { min: 0.03, max: 0.12 } as const;

const YEAR = 2023;
const WINDOW_HOURS = 48;

const { client } = useTestSimulator();

/** A year of hourly weather at a station, fetched as a client would: 48-hour windows, SI units. */
async function simulatedYear(place: { lat: number; lng: number }) {
  const start = Date.UTC(YEAR, 0, 1);
  const end = Date.UTC(YEAR + 1, 0, 1);
  const windows: Promise<WeatherData['data']['history']>[] = [];
  for (let from = start; from < end; from += WINDOW_HOURS * 3_600_000) {
    const to = Math.min(end, from + WINDOW_HOURS * 3_600_000);
    const query = historyQuery(
      place.lat,
      place.lng,
      new Date(from).toISOString(),
      new Date(to).toISOString(),
    );
    windows.push(
      client.get(`/weather/history/by-lat-lng?${query}&units=si`).then((res) => {
        expect(res.status).toBe(200);
        return res.json<WeatherData>().data.history;
      }),
    );
  }
  const hours = (await Promise.all(windows)).flat();
  const monthMean = (month: number) => {
    const temperatures = hours
      .filter((h) => new Date(h.time * 1000).getUTCMonth() === month)
      .map((h) => h.temperature);
    return temperatures.reduce((a, b) => a + b, 0) / temperatures.length;
  };
  return {
    hours: hours.length,
    precipitationMm: hours.reduce((sum, h) => sum + h.precipIntensity, 0),
    wetShare: hours.filter((h) => h.precipIntensity > 0).length / hours.length,
    januaryMeanC: monthMean(0),
    julyMeanC: monthMean(6),
  };
}

describe('the simulated climate against published normals', () => {
  it.each(CLIMATE_NORMALS.map((normal) => [normal.name, normal] as const))(
    '%s: annual precipitation within 25 %, January and July means within 2.5 °C',
    async (_name, normal) => {
      const year = await simulatedYear(normal);
      expect(year.hours).toBe(8760);
      expect(year.precipitationMm).toBeGreaterThan(
        normal.annualPrecipitationMm * (1 - PRECIPITATION_TOLERANCE),
      );
      expect(year.precipitationMm).toBeLessThan(
        normal.annualPrecipitationMm * (1 + PRECIPITATION_TOLERANCE),
      );
      expect(Math.abs(year.januaryMeanC - normal.januaryMeanC)).toBeLessThan(
        TEMPERATURE_TOLERANCE_C,
      );
      expect(Math.abs(year.julyMeanC - normal.julyMeanC)).toBeLessThan(TEMPERATURE_TOLERANCE_C);
      expect(year.wetShare).toBeGreaterThan(WET_HOURS.min);
      expect(year.wetShare).toBeLessThan(WET_HOURS.max);
    },
  );
});

describe('the simulated climate between the cited places', () => {
  it('gives a continental interior colder winters than a coast on the ocean at its latitude', async () => {
    // Kazan (a January of about −10 °C) and Edinburgh (about +4 °C) lie at 55.8° N and 56.0° N;
    // neither is an anchor of the simulator, so this is the interpolation at work.
    const kazan = await simulatedYear({ lat: 55.7887, lng: 49.1221 });
    const edinburgh = await simulatedYear({ lat: 55.9533, lng: -3.1883 });
    expect(kazan.januaryMeanC).toBeLessThan(-6);
    expect(edinburgh.januaryMeanC).toBeGreaterThan(1);
    expect(kazan.julyMeanC).toBeGreaterThan(edinburgh.julyMeanC);
  });
});
