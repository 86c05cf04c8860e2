import { describe, expect, it } from 'vitest';
import { POLLEN_SPECIES_HOURLY } from '../../src/datasets/pollen/pollen-tables.js';
import { WEATHER_HOURLY, WEATHER_SNAPSHOT } from '../../src/datasets/weather/weather-tables.js';
import type { PollenTypeRow } from '../../src/datasets/pollen/pollen-rows.js';
import { declareTables } from '../../src/warehouse/declare-tables.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';

describe('declareTables', () => {
  it('derives the fact spec and the snapshot columns from one declaration', () => {
    const context = { species: new SpeciesIds() };
    const fact = WEATHER_HOURLY.spec(context);
    const snapshot = WEATHER_SNAPSHOT.spec(context);
    expect(fact.table).toBe('envdata.weather_hourly');
    expect(snapshot.table).toBe('envdata.weather_snapshot');
    expect(snapshot.columns).toEqual(fact.columns);
    expect(WEATHER_SNAPSHOT.shareColumns).toEqual({
      humidity: 'humidity_fraction',
      cloudCover: 'cloud_cover_fraction',
      precipProbability: 'precip_probability_fraction',
    });
  });

  it('declares a key that needs a lookup once per writer', () => {
    const context = { species: new SpeciesIds() };
    expect(POLLEN_SPECIES_HOURLY.spec(context)).toBe(POLLEN_SPECIES_HOURLY.spec(context));
    expect(POLLEN_SPECIES_HOURLY.spec(context).key.map((c) => c.name)).toEqual(['species_id']);
  });

  it('does not compile when a column of the tables is left out', () => {
    const declared = declareTables<PollenTypeRow>()({
      fact: 'pollen_hourly',
      snapshot: 'pollen_snapshot',
      key: [{ name: 'pollen_type', type: 'envdata.pollen_type', value: (r) => r.pollenType }],
      columns: [{ name: 'count', type: 'int', value: (r) => r.count }],
    });
    // @ts-expect-error `risk_level` is undeclared: the result names it instead of the tables.
    expect(declared.fact.name).toBe('pollen_hourly');
  });
});
