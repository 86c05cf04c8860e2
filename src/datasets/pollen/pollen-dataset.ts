import { normalizePollen } from './normalize-pollen.js';
import { stampAtFetch } from '../../normalize/stamp-at-fetch.js';
import type { PollenPayload } from '../../service/models.js';
import { parsePollenBody } from '../../service/parse-pollen-body.js';
import type { PollenRegion } from '../../types.js';
import { tableRows } from '../../warehouse/fact-table.js';
import type { DatasetDefinition, DatasetOptions } from '../dataset-definition.js';
import {
  POLLEN_HOURLY,
  POLLEN_SNAPSHOT,
  POLLEN_SPECIES_HOURLY,
  POLLEN_SPECIES_SNAPSHOT,
} from './pollen-tables.js';

/** Species rows per hour by region (the interface's region table, `Others` included). */
const SPECIES_ROWS_PER_HOUR: Readonly<Record<PollenRegion, number>> = {
  europe: 15,
  north_america: 12,
  australia_qld_nt: 11,
  australia_nz_rest: 18,
  rest_of_world: 0,
  south_america_oceania: 0,
};

/**
 * Pollen: hourly counts and risk by type (tree, grass, weed) and by species, since 2016, by
 * coordinates or, for a location that asked for it, by place; latest readings and the 48-hour
 * and 120-hour forecasts as snapshots.
 */
export const pollenDataset: DatasetDefinition<'pollen', PollenPayload> = {
  name: 'pollen',
  historyStart: new Date('2016-01-01T00:00:00Z'),
  hoursPerRecord: 1,
  rowsPerHour: ({ pollenRegion }) =>
    pollenRegion === 'south_america_oceania' ? 0 : 3 + SPECIES_ROWS_PER_HOUR[pollenRegion],

  fetchHistory(client, { location, window, options }) {
    const range = { from: window.from, to: window.to, ...risk(options) };
    // A location registered by place may be ingested by place (an option); coordinates
    // remain the default.
    return location.ingestByPlace && location.place
      ? client.pollenHistoryByPlace({ place: location.place, ...range })
      : client.pollenHistoryByLatLng({ lat: location.lat, lng: location.lng, ...range });
  },
  parseBody: (rawBody) => parsePollenBody(rawBody),
  toFacts(payload, window) {
    const { typeRows, speciesRows, ...rest } = normalizePollen(payload, window);
    return {
      ...rest,
      tables: [tableRows(POLLEN_HOURLY, typeRows), tableRows(POLLEN_SPECIES_HOURLY, speciesRows)],
    };
  },
  // Species names vary by region; `SpeciesRisk` / `Risks` map species names to levels.
  answerMaps: ['Species.*', 'SpeciesRisk', 'Risks'],
  factTables: [POLLEN_HOURLY, POLLEN_SPECIES_HOURLY],

  snapshots: {
    sources: [
      {
        product: 'latest',
        fetch: async (client, { location, options, fetchedAt }) =>
          stampAtFetch(
            await client.pollenLatestByLatLng({
              lat: location.lat,
              lng: location.lng,
              ...risk(options),
            }),
            fetchedAt,
          ),
      },
      {
        product: 'forecast_48h',
        fetch: (client, { location, options }) =>
          client.pollenForecastByLatLng({ lat: location.lat, lng: location.lng, ...risk(options) }),
      },
      {
        product: 'forecast_120h',
        fetch: (client, { location, options }) =>
          client.pollenForecast120hByLatLng({
            lat: location.lat,
            lng: location.lng,
            ...risk(options),
          }),
      },
    ],
    tables: [POLLEN_SNAPSHOT, POLLEN_SPECIES_SNAPSHOT],
    toRows(payload) {
      const { typeRows, speciesRows } = normalizePollen(payload);
      return [
        tableRows(POLLEN_SNAPSHOT, typeRows),
        tableRows(POLLEN_SPECIES_SNAPSHOT, speciesRows),
      ];
    },
  },

  rollup: { table: 'pollen_daily_rollup', view: 'analytics.pollen_daily' },
};

/** `speciesRisk` is sent only when asked for: the service's default answer stays the default. */
function risk(options: DatasetOptions): { speciesRisk?: true } {
  return options.speciesRisk ? { speciesRisk: true } : {};
}
