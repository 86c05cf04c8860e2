import { describe, expect, it } from 'vitest';
import { canonicalSelect, canonicalTables } from '../../src/certify/canonical-form.js';

// Certificates already issued are verified against these columns (`envdata-canonical-rows/v1`):
// a change of their order or kind is a change of the canonical form.
describe('the canonical weather line', () => {
  it('writes the declared weather columns in the order and kinds of v1', () => {
    const [weather, ...rest] = canonicalTables('weather');
    expect(rest).toEqual([]);
    expect(weather!.table).toBe('weather_hourly');
    expect(weather!.key).toEqual([]);
    expect(weather!.values.map((c) => `${c.sql} ${c.kind}`)).toEqual([
      'f.temperature_c number',
      'f.apparent_temperature_c number',
      'f.dew_point_c number',
      'f.humidity_fraction number',
      'f.pressure_hpa number',
      'f.wind_speed_ms number',
      'f.wind_gust_ms number',
      'f.wind_bearing_deg number',
      'f.cloud_cover_fraction number',
      'f.visibility_km number',
      'f.uv_index number',
      'f.ozone_du number',
      'f.precip_intensity_mm_h number',
      'f.precip_probability_fraction number',
      'f.precip_type text',
      'f.summary text',
      'f.icon text',
      'f.icon_raw text',
    ]);
    expect(canonicalSelect(weather!).columns).toContain(
      'f.temperature_c::text as c0, f.apparent_temperature_c::text as c1',
    );
  });
});
