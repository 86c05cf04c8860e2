import { normalizeWeather, weatherShareUnits } from './normalize-weather.js';
import { SET_ASIDE_REASONS } from '../../normalize/set-aside-reason.js';
import { stampAtFetch } from '../../normalize/stamp-at-fetch.js';
import type { WeatherPayload } from '../../service/models.js';
import { parseWeatherBody } from '../../service/parse-weather-body.js';
import { tableRows } from '../../warehouse/fact-table.js';
import type { DatasetDefinition } from '../dataset-definition.js';
import { WEATHER_HOURLY, WEATHER_SNAPSHOT } from './weather-tables.js';

/**
 * Weather: hourly observations in SI units by coordinates, since 1990; latest readings and a
 * 72-hour forecast as snapshots.
 */
export const weatherDataset: DatasetDefinition<'weather', WeatherPayload> = {
  name: 'weather',
  historyStart: new Date('1990-01-01T00:00:00Z'),
  hoursPerRecord: 1,
  rowsPerHour: () => 1,

  // Weather has coordinate endpoints only.
  fetchHistory: (client, { location, window }) =>
    client.weatherHistory({ ...at(location), from: window.from, to: window.to }),
  parseBody: (rawBody) => parseWeatherBody(rawBody),
  shareUnitOf: weatherShareUnits,
  toFacts(payload, window, remembered) {
    const { rows, ...rest } = normalizeWeather(payload, window, remembered);
    return { ...rest, tables: [tableRows(WEATHER_HOURLY, rows)] };
  },
  factTables: [WEATHER_HOURLY],

  snapshots: {
    sources: [
      {
        product: 'latest',
        fetch: async (client, { location, fetchedAt }) =>
          stampAtFetch(await client.weatherLatest(at(location)), fetchedAt),
      },
      {
        product: 'forecast_72h',
        fetch: (client, { location }) => client.weatherForecast(at(location)),
      },
    ],
    tables: [WEATHER_SNAPSHOT],
    toRows: (payload, remembered) => [
      tableRows(WEATHER_SNAPSHOT, normalizeWeather(payload, undefined, remembered).rows),
    ],
    setAside: (payload, remembered) =>
      normalizeWeather(payload, undefined, remembered).quarantined.filter((q) =>
        Object.values(SET_ASIDE_REASONS).some((prefix) => q.reason.startsWith(prefix)),
      ),
  },

  rollup: { table: 'weather_daily_rollup', view: 'analytics.weather_daily' },
};

function at(location: { readonly lat: number; readonly lng: number }) {
  return { lat: location.lat, lng: location.lng };
}
