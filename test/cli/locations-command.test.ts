import { describe, expect, it } from 'vitest';
import { resolveLocations } from '../../src/locations/resolve-locations.js';
import { weatherFactCount } from '../harness/count-rows.js';
import { runOnTerminal } from '../harness/run-on-terminal.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTempDir } from '../harness/temp-dir.js';
import { PLACES, mixedCsv } from '../locations/location-files.js';
import { useLocationsFixture } from '../locations/locations-fixture.js';

const fx = useLocationsFixture();
const dir = useTempDir('envdata-locations-');
const envdata = (args: string[], extra?: Record<string, string>) =>
  runCliInProcess(['locations', ...args], fx.cliEnv(extra));
const rows = () => fx.locationRows();

describe('envdata locations add', () => {
  it('--place geocodes through the service once and stores the best match', async () => {
    const result = await envdata(['add', '--place', 'Berlin']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^location \d+ Berlin: 52\.\d+, 13\.\d+ DE Europe\/Berlin \(pollen region europe\) — place "Berlin, Germany"\n$/,
    );
    expect(fx.geocodeCalls()).toBe(1);
    expect(await rows()).toMatchObject([
      {
        name: 'Berlin',
        country_code: 'DE',
        timezone: 'Europe/Berlin',
        pollen_region: 'europe',
        place: 'Berlin, Germany',
        registered_by: 'place',
        ingest_by_place: false,
        retired_at: null,
      },
    ]);
  });

  it('--lat/--lng without a name takes the reverse-geocoded name', async () => {
    const result = await envdata(['add', '--lat', '41.3874', '--lng', '2.1686']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Barcelona: 41\.3874, 2\.1686 ES Europe\/Madrid/);
    expect(fx.reverseGeocodeCalls()).toBe(1);
    expect((await rows()).map((r) => [r.name, r.registered_by])).toEqual([
      ['Barcelona', 'coordinates'],
    ]);
  });

  it('a place with no match exits 2 and writes nothing', async () => {
    const result = await envdata(['add', '--place', 'Xyzzyville']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no place matches "Xyzzyville"/);
    expect(await rows()).toEqual([]);
  });

  it('an ambiguous place exits 2 listing the candidates; --country picks one', async () => {
    const ambiguous = await envdata(['add', '--place', 'Valencia']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(
      /"Valencia" is ambiguous: Valencia, [^;]*\[VE\][^;]*; Valencia, Spain \[ES\]/,
    );
    expect(ambiguous.stderr).toContain('--country VE|ES');
    expect(await rows()).toEqual([]);

    const spain = await envdata([
      'add',
      '--place',
      'Valencia',
      '--country',
      'es',
      '--ingest-by-place',
    ]);
    expect(spain.code).toBe(0);
    expect(spain.stdout).toMatch(
      /Valencia: .* ES Europe\/Madrid \(pollen region europe\) — place "Valencia, Spain", pollen by place/,
    );
    expect(await rows()).toMatchObject([
      { name: 'Valencia', country_code: 'ES', place: 'Valencia, Spain', ingest_by_place: true },
    ]);
  });

  it('a duplicate exits 2 naming the location that holds it', async () => {
    expect((await envdata(['add', '--place', 'Paris'])).code).toBe(0);
    const again = await envdata(['add', '--lat', '48.8566', '--lng', '2.3522', '--name', 'Paris']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/the name "Paris" is already registered \(location \d+/);
    expect(again.stderr).toContain('Choose another --name');
    expect(await rows()).toHaveLength(1);
  });

  it('a duplicate point exits 2 pointing at the location that has it, not at another --name', async () => {
    const first = await envdata(['add', '--lat', '48.8566', '--lng', '2.3522', '--name', 'Paris']);
    expect(first.code).toBe(0);
    const again = await envdata([
      'add',
      '--lat',
      '48.8566',
      '--lng',
      '2.3522',
      '--name',
      'Lutetia',
    ]);
    expect(again.code).toBe(2);
    const [id] = /location (\d+)/.exec(first.stdout)!.slice(1);
    expect(again.stderr).toBe(
      `envdata: cannot register "Lutetia": the point 48.8566, 2.3522 is already registered (location ${id} "Paris"). ` +
        `A point is registered once: use location ${id} ("Paris"), or see \`envdata locations list\`\n`,
    );
    expect(await rows()).toHaveLength(1);
  });

  it.each([
    [['add', '--lat', '95', '--lng', '0', '--name', 'X'], /--lat must be a number in \[-90, 90\]/],
    [['add', '--place', 'Berlin', '--lat', '1', '--lng', '1'], /either --place or --lat\/--lng/],
    [['add', '--lat', '1', '--lng', '1', '--ingest-by-place'], /--ingest-by-place needs --place/],
    [['add', '--place', 'Berlin', '--country', 'Germany'], /--country must be a two-letter code/],
  ])('bad flags %j exit 2 before any call', async (args, message) => {
    const result = await envdata(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(fx.simulator.stats().total).toBe(0);
  });

  it('a command that calls the service exits 2 without ENVDATA_API_KEY, before anything else', async () => {
    const result = await envdata(['add', '--place', 'Berlin'], { ENVDATA_API_KEY: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ENVDATA_API_KEY is not set/);
    const importing = await envdata(['import', await dir.write('places.csv', 'place\nBerlin\n')], {
      ENVDATA_API_KEY: '',
    });
    expect(importing.code).toBe(2);
    expect(importing.stderr).toMatch(/ENVDATA_API_KEY is not set/);
    expect(fx.simulator.stats().total).toBe(0);
    expect(await rows()).toEqual([]);
  });

  it("a service failure exits 1 with the service's reason", async () => {
    const result = await envdata(['add', '--place', 'Berlin'], { ENVDATA_API_KEY: 'wrong-key' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /could not geocode "Berlin": the service rejected the API key \(401\)/,
    );
    expect(result.stderr).not.toContain('wrong-key');
    // Adding a location is no run: nothing to stop. Nor is a refused key a usage error.
    expect(result.stderr).toMatch(/check ENVDATA_API_KEY \(no retry can fix a refused key\)\n$/);
    expect(result.stderr).not.toMatch(/\brun\b/);
    expect(result.stderr).not.toContain('--help');
    expect(await rows()).toEqual([]);
  });
});

describe('envdata locations import', () => {
  it('registers every row of a 50-row CSV mixing points and places', async () => {
    const result = await envdata(['import', await dir.write('mixed.csv', mixedCsv(40))]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /imported 50 location\(s\) from .*mixed\.csv \(10 geocoding call\(s\)\)/,
    );
    expect(fx.geocodeCalls()).toBe(PLACES.length);
    const all = await rows();
    expect(all).toHaveLength(50);
    expect(all.filter((r) => r.place !== null).map((r) => r.name)).toEqual([...PLACES]);
  });

  it('one bad row exits 2, names the row and writes nothing', async () => {
    const csv = mixedCsv(40).replace(/^Grid 30,[^,]*,/m, 'Grid 30,north,');
    const result = await envdata(['import', await dir.write('bad.csv', csv)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('1 problem(s) in the file, nothing was written');
    expect(result.stderr).toContain(
      'line 41: lat must be a plain decimal number such as 52.52 (got "north")',
    );
    expect(await rows()).toEqual([]);
  });

  it('imports a JSON list, and refuses it again as duplicates', async () => {
    const json = JSON.stringify([
      { name: 'Munich', lat: 48.1351, lng: 11.582, country: 'DE' },
      { place: 'Valencia', country: 'ES' },
    ]);
    const list = await dir.write('list.json', json);
    const result = await envdata(['import', list]);
    expect(result.code).toBe(0);
    expect((await rows()).map((r) => [r.name, r.country_code, r.registered_by])).toEqual([
      ['Munich', 'DE', 'import'],
      ['Valencia', 'ES', 'import'],
    ]);
    const again = await envdata(['import', list]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/index 0: the name "Munich" is already registered/);
    expect(again.stderr).toMatch(
      /index 1 \(place "Valencia" → Valencia, Spain\): the name "Valencia"/,
    );
    expect(await rows()).toHaveLength(2);
  });

  it('a place row is found afterwards by the text of the row, and list shows it (issue 22, defect 15)', async () => {
    const file = await dir.write('renamed.csv', 'place,country\nZurich,CH\nFrankfurt,DE\n');
    expect((await envdata(['import', file])).code).toBe(0);
    const listed = await envdata(['list']);
    expect(listed.stdout).toMatch(/Zürich .*\(also "Zurich"\)/);
    expect(listed.stdout).toMatch(/Frankfurt am Main .*\(also "Frankfurt"\)/);
    const json = JSON.parse((await envdata(['list', '--json'])).stdout) as {
      locations: { name: string; aliases: string[] }[];
    };
    expect(json.locations.map((l) => [l.name, l.aliases])).toEqual([
      ['Zürich', ['Zurich']],
      ['Frankfurt am Main', ['Frankfurt']],
    ]);
    const removed = await envdata(['remove', 'Zurich', 'frankfurt']);
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect((await rows()).map((r) => r.retired_at !== null)).toEqual([true, true]);
  });

  it('a file that cannot be read exits 2', async () => {
    const result = await envdata(['import', dir.path('missing.csv')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot read .*missing\.csv \(ENOENT\)/);
  });
});

describe('envdata locations remove', () => {
  async function withFact(): Promise<number> {
    const added = await envdata(['add', '--lat', '52.52', '--lng', '13.405', '--name', 'Berlin']);
    expect(added.code).toBe(0);
    const [row] = await rows();
    await fx.app.db
      .insertInto('weather_hourly')
      .values({
        location_id: row!.location_id,
        observed_at: new Date('2024-01-01T00:00:00Z'),
        temperature_c: 3,
      })
      .execute();
    return row!.location_id;
  }
  const facts = (id: number) => weatherFactCount(fx.app.db, id);

  it('retires the location: excluded from resolveLocations([]), its facts stay', async () => {
    const id = await withFact();
    const result = await envdata(['remove', 'berlin']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /retired location \d+ Berlin: its 1 fact row\(s\) stay queryable/,
    );
    expect(await resolveLocations(fx.app.db, [])).toEqual([]);
    expect(await facts(id)).toBe(1);
    const list = await envdata(['list']);
    expect(list.stdout).toMatch(/Berlin .*\(retired \d{4}-\d{2}-\d{2}\)/);

    expect((await envdata(['restore', String(id)])).code).toBe(0);
    expect((await resolveLocations(fx.app.db, [])).map((l) => l.name)).toEqual(['Berlin']);
  });

  it('--purge without --yes off a terminal refuses, names what it would delete, deletes nothing', async () => {
    const id = await withFact();
    const result = await envdata(['remove', String(id), '--purge']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--purge deletes 1 location\(s\) \(Berlin\) and their 1 fact row\(s\).*add --yes to confirm \(nothing was deleted\)/,
    );
    expect(await facts(id)).toBe(1);
    expect((await envdata(['remove', String(id), '--purge', '--yes'])).code).toBe(0);
  });

  it('--purge on a terminal asks first: no keeps everything, yes deletes', async () => {
    const id = await withFact();
    const no = runOnTerminal(['locations', 'remove', String(id), '--purge'], fx.cliEnv());
    await no.waitFor('Delete? [y/N] ');
    no.type('n\r');
    expect(await no.exited).toBe(2);
    expect(no.screen()).toMatch(/nothing was deleted/);
    expect(await facts(id)).toBe(1);

    const yes = runOnTerminal(['locations', 'remove', String(id), '--purge'], fx.cliEnv());
    await yes.waitFor('Delete? [y/N] ');
    yes.type('y\r');
    expect(await yes.exited).toBe(0);
    expect(yes.screen()).toMatch(/purged location \d+ Berlin and its 1 fact row\(s\)/);
    expect(await facts(id)).toBe(0);
  });

  it('--purge --yes deletes the location and its facts', async () => {
    const id = await withFact();
    const result = await envdata(['remove', String(id), '--purge', '--yes']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/purged location \d+ Berlin and its 1 fact row\(s\)/);
    expect(await rows()).toEqual([]);
    expect(await facts(id)).toBe(0);
  });

  it('an unknown location exits 2', async () => {
    const result = await envdata(['remove', 'Atlantis']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown location\(s\): "Atlantis"/);
  });
});
