import type { TestWarehouse } from '../harness/test-warehouse.js';

/** The location the export's tests land weather at. */
export const BERLIN = { name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' } as const;

/**
 * Berlin with hourly weather from 2024-05-31 to 2024-06-02 (UTC): two weather partitions of 24
 * rows each and the locations', 49 rows in all.
 */
export async function landTwoMonthsOfWeather(wh: TestWarehouse): Promise<void> {
  const berlin = await wh.addLocation(BERLIN);
  await wh.landWeather(berlin.locationId, {
    from: new Date('2024-05-31T00:00:00Z'),
    to: new Date('2024-06-02T00:00:00Z'),
  });
}
