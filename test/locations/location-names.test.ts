import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { isEnvdataError, type EnvdataError } from '../../src/errors/envdata-error.js';
import { addLocationByPlace, addLocationByPoint } from '../../src/locations/add-location.js';
import { importLocations } from '../../src/locations/import-locations.js';
import { insertLocation, insertLocations } from '../../src/locations/insert-location.js';
import { listLocations } from '../../src/locations/list-locations.js';
import { parseLocationFile } from '../../src/locations/parse-location-file.js';
import { purgeLocations } from '../../src/ledger/remove-locations.js';
import { resolveLocations } from '../../src/locations/resolve-locations.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { pollUntil } from '../harness/poll-until.js';
import { useLocationsFixture } from './locations-fixture.js';

const fx = useLocationsFixture();

async function rejection(promise: Promise<unknown>): Promise<EnvdataError> {
  try {
    await promise;
  } catch (error) {
    if (isEnvdataError(error)) return error;
    throw error;
  }
  throw new Error('expected an EnvdataError');
}

const names = async () =>
  (await fx.app.db.selectFrom('location').select('name').orderBy('location_id').execute()).map(
    (r) => r.name,
  );

const FRANKFURT_ODER = { name: 'Frankfurt', lat: 52.3471, lng: 14.5506 };

describe('look-alike names', () => {
  it('refuses a name with an invisible character beside the plain one, naming the holder', async () => {
    const berlin = await addPointLocation(fx.app.db, { name: 'Berlin', lat: 52.52, lng: 13.405 });
    const error = await rejection(
      addLocationByPoint(fx.app.db, undefined, { name: 'Ber\u200Blin', lat: 52.4, lng: 13.1 }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(
      `the name "Ber\u200Blin" reads as "Berlin", the name of location ${berlin.locationId}`,
    );
    expect(await names()).toEqual(['Berlin']);
  });

  it('refuses an NFD name beside its NFC form, and stores names in NFC', async () => {
    const first = await addPointLocation(fx.app.db, {
      name: 'Zu\u0308rich',
      lat: 47.3769,
      lng: 8.5417,
    });
    expect(first.name).toBe('Z\u00fcrich');
    const error = await rejection(
      addLocationByPoint(fx.app.db, undefined, { name: 'Z\u00fcrich', lat: 47.3, lng: 8.6 }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(await names()).toEqual(['Z\u00fcrich']);
  });

  it('the database refuses look-alikes too, when a writer skips the check', async () => {
    await addPointLocation(fx.app.db, { name: 'Berlin', lat: 52.52, lng: 13.405 });
    for (const name of ['BER\u00adLIN', 'Ber\uFEFFlin']) {
      const error = await rejection(
        insertLocation(fx.app.db, { name, lat: 50, lng: 10, registeredBy: 'coordinates' }),
      );
      expect(error.code).toBe('CONFLICT');
    }
    expect(await names()).toEqual(['Berlin']);
  });

  it('an import refuses look-alike names within the file and against the warehouse', async () => {
    await addPointLocation(fx.app.db, { name: 'Berlin', lat: 52.52, lng: 13.405 });
    const file = parseLocationFile(
      'name,lat,lng\nBer\u200Blin,52.4,13.1\nZu\u0308rich,47.3769,8.5417\nZ\u00fcrich,47.3,8.6\n',
      'csv',
    );
    const error = await rejection(importLocations(fx.app.db, file, undefined));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(
      /\n {2}line 2: the name "Ber\u200Blin" reads as "Berlin", the name of location \d+ at 52\.52, 13\.405\n {2}line 4: the name "Z\u00fcrich" is also on line 3$/,
    );
  });

  it('a --location reference reads names the same way', async () => {
    const zurich = await addPointLocation(fx.app.db, {
      name: 'Z\u00fcrich',
      lat: 47.3769,
      lng: 8.5417,
    });
    const found = await resolveLocations(fx.app.db, ['Zu\u0308RICH\u200B']);
    expect(found.map((l) => l.locationId)).toEqual([zurich.locationId]);
  });
});

describe('names you gave keep working', () => {
  it('an imported place is found by the place text of its row as well as by its stored name', async () => {
    const file = parseLocationFile('place,country\nZurich,CH\nFrankfurt,DE\n', 'csv');
    const { locations } = await importLocations(fx.app.db, file, fx.client);
    expect(locations.map((l) => l.name)).toEqual(['Z\u00fcrich', 'Frankfurt am Main']);
    const byText = await resolveLocations(fx.app.db, ['Zurich', 'frankfurt']);
    const byName = await resolveLocations(fx.app.db, ['Zürich', 'Frankfurt am Main']);
    expect(byText.map((l) => l.locationId)).toEqual(locations.map((l) => l.locationId));
    expect(byName).toEqual(byText);
    expect((await listLocations(fx.app.db)).map((l) => [l.name, l.aliases])).toEqual([
      ['Z\u00fcrich', ['Zurich']],
      ['Frankfurt am Main', ['Frankfurt']],
    ]);
  });

  it('`locations add --place` keeps its place text; a later name reading as it is refused', async () => {
    const zurich = await addLocationByPlace(fx.app.db, fx.client, { place: 'Zurich' });
    expect(zurich.name).toBe('Z\u00fcrich');
    expect(await resolveLocations(fx.app.db, ['ZURICH'])).toEqual([zurich]);
    const error = await rejection(
      addLocationByPoint(fx.app.db, undefined, { name: 'zurich', lat: 40, lng: -100 }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(
      `the name "zurich" reads as "Zurich", the place location ${zurich.locationId}`,
    );
  });

  it('a place text that reads as another location refuses the place, unless the operator names it', async () => {
    const oder = await addPointLocation(fx.app.db, FRANKFURT_ODER);
    const error = await rejection(
      addLocationByPlace(fx.app.db, fx.client, { place: 'Frankfurt', country: 'DE' }),
    );
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toContain(
      `the place "Frankfurt" (kept as another name of the new location) reads as "Frankfurt", the name of location ${oder.locationId}`,
    );
    expect(error.message).toContain('give it a --name of your own');
    expect(await names()).toEqual(['Frankfurt']);

    const warnings: string[] = [];
    const main = await addLocationByPlace(
      fx.app.db,
      fx.client,
      { place: 'Frankfurt', country: 'DE', name: 'FFM' },
      { onWarning: (m) => warnings.push(m) },
    );
    expect(warnings).toEqual([
      expect.stringContaining(`--location "Frankfurt" means location ${oder.locationId}`),
    ]);
    expect(await resolveLocations(fx.app.db, ['Frankfurt'])).toEqual([oder]);
    expect(await resolveLocations(fx.app.db, ['ffm'])).toEqual([main]);
  });

  it('an import row whose place reads as another name is a problem, or a warning when the row is named', async () => {
    await addPointLocation(fx.app.db, FRANKFURT_ODER);
    const bare = parseLocationFile('place,country\nFrankfurt,DE\n', 'csv');
    const error = await rejection(importLocations(fx.app.db, bare, fx.client));
    expect(error.details.problems).toEqual([
      expect.stringMatching(
        /^line 2 .*: the place "Frankfurt" \(kept as another name of the new location\) reads as "Frankfurt", the name of location \d+ .*: give the row a name of its own/,
      ),
    ]);
    const named = parseLocationFile('name,place,country\nFFM,Frankfurt,DE\n', 'csv');
    const outcome = await importLocations(fx.app.db, named, fx.client);
    expect(outcome.warnings).toEqual([
      expect.stringMatching(/^line 2 .*: the place text is not kept as another name of the row/),
    ]);
    expect((await listLocations(fx.app.db)).map((l) => [l.name, l.aliases])).toEqual([
      ['Frankfurt', []],
      ['FFM', []],
    ]);
  });

  it('the database refuses an alias that reads as a name, and a name that reads as an alias', async () => {
    const zurich = await addLocationByPlace(fx.app.db, fx.client, { place: 'Zurich' });
    const asName = await rejection(
      insertLocation(fx.app.db, { name: 'ZURICH', lat: 1, lng: 1, registeredBy: 'coordinates' }),
    );
    expect(asName.code).toBe('CONFLICT');
    const asAlias = await rejection(
      insertLocation(fx.app.db, {
        name: 'Oslo',
        alias: 'Z\u00fcrich',
        lat: 59.9,
        lng: 10.7,
        registeredBy: 'place',
      }),
    );
    expect(asAlias.code).toBe('CONFLICT');
    expect(await names()).toEqual([zurich.name]);
    await expect(
      sql`insert into envdata.location_alias (alias_key, location_id, alias)
          values ('zürich', ${zurich.locationId}, 'Zürich')`.execute(fx.app.db),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('a name and an alias reading alike, written at once by two writers: the second waits, then is refused', async () => {
    let inserted!: () => void;
    let commit!: () => void;
    const isInserted = new Promise<void>((resolve) => (inserted = resolve));
    const mayCommit = new Promise<void>((resolve) => (commit = resolve));
    const first = fx.app.db.transaction().execute(async (trx) => {
      await insertLocation(trx, {
        name: 'Zurich',
        lat: 47.37,
        lng: 8.54,
        registeredBy: 'coordinates',
      });
      inserted();
      await mayCommit;
    });
    await isInserted;
    const second = insertLocation(fx.app.db, {
      name: 'Oslo',
      alias: 'ZURICH',
      lat: 59.9,
      lng: 10.7,
      registeredBy: 'place',
    }).catch((error: unknown) => error);
    await pollUntil(
      async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_locks
          where locktype = 'advisory' and not granted and database = (
            select oid from pg_database where datname = current_database())`.execute(fx.app.db);
        return rows[0]!.n > 0 ? { done: true } : { last: rows[0]!.n };
      },
      { timeoutMs: 10_000, describe: () => 'the second writer never waited for the first' },
    );
    commit();
    await first;
    expect(await second).toMatchObject({ code: 'CONFLICT' });
    expect(await names()).toEqual(['Zurich']);
  });

  it('a transaction registering many names and aliases holds one advisory lock, not one a key', async () => {
    const held = await fx.app.db.transaction().execute(async (trx) => {
      await insertLocations(
        trx,
        Array.from({ length: 300 }, (_, i) => ({
          name: `Site ${i}`,
          alias: `Place ${i}`,
          lat: 40 + i * 0.01,
          lng: 10,
          registeredBy: 'place' as const,
        })),
      );
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks
        where locktype = 'advisory' and pid = pg_backend_pid()`.execute(trx);
      return rows[0]!.n;
    });
    expect(held).toBe(1);
    expect(await fx.app.db.selectFrom('location_alias').select('alias').execute()).toHaveLength(
      300,
    );
  });

  it('a purged location frees its aliases; a retired one keeps them', async () => {
    const zurich = await addLocationByPlace(fx.app.db, fx.client, { place: 'Zurich' });
    await fx.app.db.updateTable('location').set({ retired_at: new Date() }).execute();
    const retired = await rejection(
      addLocationByPoint(fx.app.db, undefined, { name: 'Zurich', lat: 40, lng: -100 }),
    );
    expect(retired.message).toContain(`envdata locations restore ${zurich.locationId}`);
    await purgeLocations(fx.app.db, [zurich]);
    expect(await fx.app.db.selectFrom('location_alias').selectAll().execute()).toEqual([]);
    const again = await addLocationByPoint(fx.app.db, undefined, {
      name: 'Zurich',
      lat: 40,
      lng: -100,
    });
    expect(await resolveLocations(fx.app.db, ['zurich'])).toEqual([again]);
  });
});

describe('points without a country', () => {
  it('registered with a name get the country of the point, none near a border with a warning', async () => {
    const warnings: string[] = [];
    const onWarning = (m: string) => warnings.push(m);
    const prague = await addLocationByPoint(
      fx.app.db,
      undefined,
      { name: 'Office', lat: 50.0755, lng: 14.4378 },
      { onWarning },
    );
    const basel = await addLocationByPoint(
      fx.app.db,
      undefined,
      { name: 'Border site', lat: 47.5596, lng: 7.5886 },
      { onWarning },
    );
    expect([prague.countryCode, basel.countryCode]).toEqual(['CZ', null]);
    expect(warnings).toEqual([expect.stringMatching(/lies near the border of .*\(CH\)/)]);
  });

  it('imported, get the country of the point, computed offline; none at sea or on a border, with a warning there', async () => {
    const file = parseLocationFile(
      'name,lat,lng\nPrague,50.0755,14.4378\nAtlantic,-40,-20\nBasel border,47.5596,7.5886\n',
      'csv',
    );
    const outcome = await importLocations(fx.app.db, file, undefined);
    expect(outcome.locations.map((l) => [l.name, l.countryCode])).toEqual([
      ['Prague', 'CZ'],
      ['Atlantic', null],
      ['Basel border', null],
    ]);
    expect(outcome.warnings).toEqual([
      expect.stringMatching(
        /^line 4: 47\.5596, 7\.5886 lies near the border of .*\(CH\).*\(FR\)|^line 4: 47\.5596, 7\.5886 lies near the border of .*\(CH\).*\(DE\)/,
      ),
    ]);
  });
});
