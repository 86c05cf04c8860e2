import { beforeEach, describe, expect, it } from 'vitest';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { materializeChunks } from '../../src/ledger/materialize-chunks.js';
import type { Location } from '../../src/locations/location.js';
import {
  purgeLocations,
  restoreLocations,
  retireLocations,
} from '../../src/ledger/remove-locations.js';
import { resolveLocations } from '../../src/locations/resolve-locations.js';
import { planRun } from '../../src/planner/plan-run.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';
import { weatherFactCount } from '../harness/count-rows.js';
import { addPointLocation } from '../harness/add-point-location.js';

const wh = useTestWarehouse();
let berlin: Location;
let rome: Location;

beforeEach(async () => {
  await wh.app.db.deleteFrom('location').execute();
  berlin = await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' });
  rome = await wh.addLocation({ name: 'Rome', lat: 41.9028, lng: 12.4964, countryCode: 'IT' });
  await wh.app.db
    .insertInto('weather_hourly')
    .values(
      [0, 1, 2].map((h) => ({
        location_id: berlin.locationId,
        observed_at: new Date(Date.UTC(2024, 0, 1, h)),
        temperature_c: 1 + h,
      })),
    )
    .execute();
});

const factsOf = (locationId: number) => weatherFactCount(wh.app.db, locationId);

describe('retireLocations', () => {
  it('keeps the row and its facts, and leaves it out of resolveLocations([])', async () => {
    const [retired] = await retireLocations(wh.app.db, [berlin]);
    expect(retired).toMatchObject({ facts: 3, alreadyRetired: false });
    expect(retired?.location.retiredAt).toBeInstanceOf(Date);
    expect(await factsOf(berlin.locationId)).toBe(3);
    expect((await resolveLocations(wh.app.db, [])).map((l) => l.name)).toEqual(['Rome']);
    // Named explicitly (a rebuild of its history, say), it is still found, marked retired.
    const [named] = await resolveLocations(wh.app.db, ['berlin']);
    expect(named?.retiredAt).toBeInstanceOf(Date);
  });

  it('is idempotent, and restoreLocations makes the location active again', async () => {
    await retireLocations(wh.app.db, [berlin]);
    const [again] = await retireLocations(wh.app.db, [berlin]);
    expect(again?.alreadyRetired).toBe(true);
    const [restored] = await restoreLocations(wh.app.db, [berlin]);
    expect(restored?.retiredAt).toBeNull();
    expect((await resolveLocations(wh.app.db, [])).map((l) => l.name)).toEqual(['Berlin', 'Rome']);
  });

  it("keeps the retired location's name and point taken", async () => {
    await retireLocations(wh.app.db, [berlin]);
    const error: unknown = await addPointLocation(wh.app.db, {
      name: 'BERLIN',
      lat: 1,
      lng: 1,
    }).catch((e: unknown) => e);
    expect(isEnvdataError(error) && error.code).toBe('CONFLICT');
  });
});

describe('purgeLocations', () => {
  it('deletes the location with its facts and leaves the others alone', async () => {
    const [purged] = await purgeLocations(wh.app.db, [berlin]);
    expect(purged?.facts).toBe(3);
    expect(await factsOf(berlin.locationId)).toBe(0);
    expect((await resolveLocations(wh.app.db, [])).map((l) => l.name)).toEqual(['Rome']);
  });

  it('refuses while a running run has open chunks for it, deleting nothing', async () => {
    // A backfill of one 48 h window, planned and fed as workers would: one queued chunk.
    const { runId } = await planRun(
      wh.app.db,
      {
        kind: 'backfill',
        datasets: ['weather'],
        locations: [berlin],
        from: new Date('2024-02-01T00:00:00Z'),
        to: new Date('2024-02-03T00:00:00Z'),
        windowHours: 48,
      },
      [],
    );
    expect(await materializeChunks(wh.app.db, 10, { recheckMs: 0 })).toHaveLength(1);
    const error = await purgeLocations(wh.app.db, [berlin, rome]).catch((e: unknown) => e);
    expect(isEnvdataError(error) && error.code).toBe('CONFLICT');
    expect((error as Error).message).toContain(`run(s) ${runId} (1 open chunk(s))`);
    expect(await factsOf(berlin.locationId)).toBe(3);
    expect(await resolveLocations(wh.app.db, [])).toHaveLength(2);
  });
});
