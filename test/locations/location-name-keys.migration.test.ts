import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { listLocations } from '../../src/locations/list-locations.js';
import { resolveLocations } from '../../src/locations/resolve-locations.js';
import * as migration from '../../migrations/2026_11_26_0023_location_name_keys_and_aliases.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';
import { addPointLocation } from '../harness/add-point-location.js';

const wh = useTestWarehouse();

describe('migration 0023 (location name keys and aliases)', () => {
  it('keys existing names, and does not fail on look-alikes registered before: the lowest id keeps the name', async () => {
    const db = wh.app.db;
    await migration.down(db);
    const { rows } = await sql<{ location_id: number }>`
      insert into envdata.location (name, lat, lng, timezone, pollen_region, registered_by)
      values ('Berlin', 52.52, 13.405, 'Europe/Berlin', 'europe', 'coordinates'),
             (${'Ber\u200Blin'}, 52.4, 13.1, 'Europe/Berlin', 'europe', 'coordinates'),
             (${'Zu\u0308rich'}, 47.3769, 8.5417, 'Europe/Zurich', 'europe', 'coordinates'),
             (${'Z\u00fcrich'}, 47.3, 8.6, 'Europe/Zurich', 'europe', 'coordinates')
      returning location_id`.execute(db);
    const [berlin, lookAlike, nfd, nfc] = rows.map((r) => r.location_id);
    await migration.up(db);

    const keys = await db
      .selectFrom('location')
      .select(['location_id', 'name', 'name_key'])
      .orderBy('location_id')
      .execute();
    expect(keys).toEqual([
      { location_id: berlin, name: 'Berlin', name_key: 'berlin' },
      { location_id: lookAlike, name: 'Ber\u200Blin', name_key: `berlin\u2060${lookAlike}` },
      { location_id: nfd, name: 'Zu\u0308rich', name_key: 'z\u00fcrich' },
      { location_id: nfc, name: 'Z\u00fcrich', name_key: `z\u00fcrich\u2060${nfc}` },
    ]);
    expect((await resolveLocations(db, ['Ber\u200Blin'])).map((l) => l.locationId)).toEqual([
      berlin,
    ]);
    expect((await resolveLocations(db, [`id:${nfc}`])).map((l) => l.name)).toEqual(['Z\u00fcrich']);
    expect((await listLocations(db)).map((l) => [l.locationId, l.answersToName])).toEqual([
      [berlin, true],
      [lookAlike, false],
      [nfd, true],
      [nfc, false],
    ]);
    const error: unknown = await addPointLocation(db, { name: 'BERLIN', lat: 1, lng: 1 }).catch(
      (e: unknown) => e,
    );
    expect(isEnvdataError(error) && error.code).toBe('CONFLICT');
  });
});
