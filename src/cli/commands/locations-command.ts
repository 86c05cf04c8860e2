import type { Command } from 'commander';
import { requireApiKey } from '../../config/require-api-key.js';
import { isEnvdataError } from '../../errors/envdata-error.js';
import type { Location } from '../../locations/location.js';
import { locationTextMessage } from '../../locations/location-text-problem.js';
import { parseCoordinate, type CoordinateAxis } from '../../locations/parse-coordinate.js';
import { parseCountryCode } from '../../locations/parse-country-code.js';
import { LOCATION_FILE_FIELDS } from '../../locations/parse-location-file.js';
import { LOCATION_REFERENCE_HELP } from '../../locations/location-reference-help.js';
import type { CommandContext } from '../command-context.js';
import { confirm } from '../confirm.js';
import { printJsonDocument } from '../json/print-json-document.js';
import { usageError } from '../usage-error.js';
import { errorCode } from '../../errors/pg-errors.js';

interface AddOptions {
  place?: string;
  lat?: string;
  lng?: string;
  name?: string;
  country?: string;
  ingestByPlace?: boolean;
}

const IMPORT_HELP = `
File formats (all rows are validated before anything is written; one bad row writes nothing):
  CSV   a header row naming the columns, then one location per row:
          name,lat,lng[,country]       a point: name, latitude, longitude (decimal degrees)
          place[,country][,name]       a place geocoded through the service (best match);
                                       country (two letters) picks among namesakes, name
                                       overrides the geocoded name
        Both kinds may share one file: header name,lat,lng,country,place, empty cells skipped.
        Fields with commas or quotes are "quoted" (RFC 4180). Problems are reported by line.
  JSON  an array of objects with the same keys (${LOCATION_FILE_FIELDS.join(', ')}):
          [{"name": "Berlin", "lat": 52.52, "lng": 13.405}, {"place": "Valencia", "country": "ES"}]
        Problems are reported by index (0-based).
  The format follows the extension (.csv, .json), else the first character ("[" is JSON).
  Coordinates are JSON numbers or plain decimals (52.52, -0.1278: no spaces, "+", exponent or
  hex); country is an ISO 3166-1 alpha-2 code, and a point's country must contain the point
  (where envdata cannot tell, at sea or within a few km of a border, it warns). Names must be
  unique as they read (case, Unicode form and invisible characters aside) and points unique
  (4 decimals), within the file and against registered locations; a place row's place text is
  kept as another name of its location (--location finds it) and must be unique the same way,
  unless the row has a name of its own. Names may not be digits only nor hold control or
  bidirectional characters. A point without a country gets the country it lies in, from the
  offline gazetteer (none at sea, none with a warning within a few km of a border). Place rows need ENVDATA_API_KEY; at most 4 calls run at once.

Example:
  name,lat,lng,country,place
  Munich,48.1351,11.582,DE,
  ,,,,Berlin
  ,,,ES,Valencia
`;

export function registerLocationsCommand(program: Command, context: CommandContext): void {
  const locations = program
    .command('locations')
    .description('Register, import, list and remove locations');

  locations
    .command('add')
    .description(
      'Register a location by place (geocoded through the service) or by coordinates; time zone and pollen region are computed locally',
    )
    .option('--place <text>', 'a place name or address the service geocodes: "Berlin"')
    .option('--lat <lat>', 'latitude in [-90, 90], a plain decimal such as 52.52 (with --lng)')
    .option('--lng <lng>', 'longitude in [-180, 180], a plain decimal such as 13.405 (with --lat)')
    .option(
      '--name <name>',
      'a unique name, not digits only (default: the service names the place or point; without ENVDATA_API_KEY a point is named from the local gazetteer)',
    )
    .option(
      '--country <code>',
      'ISO 3166-1 alpha-2 code, any case: with --place, only matches in this country (disambiguates); with --lat/--lng, the country to record, which must contain the point (the pollen region always follows the point)',
    )
    .option(
      '--ingest-by-place',
      'with --place: ingest pollen through the by-place endpoints (default: by coordinates)',
    )
    .addHelpText(
      'after',
      `
Examples:
  envdata locations add --place Berlin
  envdata locations add --place Valencia --country ES --ingest-by-place
  envdata locations add --lat 41.3874 --lng 2.1686              # named by reverse geocoding
  envdata locations add --lat 41.3874 --lng 2.1686 --name Barcelona-Centre

A place with no match, an ambiguous place (namesakes of similar size, listed), coordinates out of
range, a country the point is not in, or a duplicate name or point exit 2 and write nothing; a
service failure exits 1. Where envdata cannot check the country (at sea, within a few km of a
border) it records it as given and warns.`,
    )
    .action(async (options: AddOptions) => {
      const name = checkedText('--name', 'name', options.name);
      const country = checkedCountry(options.country);
      const warn = {
        onWarning: (m: string) => context.io.stderr.write(`envdata: warning: ${m}\n`),
      };
      if (options.place !== undefined) {
        if (options.lat !== undefined || options.lng !== undefined) {
          throw usageError('give either --place or --lat/--lng, not both');
        }
        const place = checkedText('--place', 'place', options.place)!;
        requireApiKey(context.config);
        const { addLocationByPlace } = await import('../../locations/add-location.js');
        const location = await context.withApp((app) =>
          addLocationByPlace(
            app.db,
            app.serviceClient,
            { place, country, name, ingestByPlace: options.ingestByPlace ?? false },
            warn,
          ),
        );
        context.print(describeLocation(location));
        return;
      }
      if (options.ingestByPlace) {
        throw usageError('--ingest-by-place needs --place: a point has no place to ingest by');
      }
      if (options.lat === undefined || options.lng === undefined) {
        throw usageError('give --place, or both --lat and --lng');
      }
      const lat = checkedCoordinate('--lat', 'lat', options.lat);
      const lng = checkedCoordinate('--lng', 'lng', options.lng);
      const byService = name === undefined && Boolean(context.config.service.apiKey);
      const { addLocationByPoint } = await import('../../locations/add-location.js');
      const location = await context.withApp((app) =>
        addLocationByPoint(
          app.db,
          byService ? app.serviceClient : undefined,
          { lat, lng, name, country },
          warn,
        ),
      );
      context.print(describeLocation(location));
      if (name === undefined && !byService) {
        context.io.stderr.write(
          'envdata: named from the local gazetteer because ENVDATA_API_KEY is not set; set it to have the service name points\n',
        );
      }
    });

  locations
    .command('import')
    .description(
      'Register every location of a CSV or JSON file, all or nothing (places are geocoded first)',
    )
    .argument('<file>', 'a .csv or .json file (formats below)')
    .addHelpText('after', IMPORT_HELP)
    .action(async (fileName: string) => {
      const maxRows = context.config.locations.importMaxRows;
      const [{ openRegularFile }, { readLocationFile }, { importLocations }] = await Promise.all([
        import('../../locations/open-regular-file.js'),
        import('../../locations/read-location-file.js'),
        import('../../locations/import-locations.js'),
      ]);
      // A regular file only: a FIFO would hang the read, a device (/dev/zero) never end.
      const opened = await openRegularFile(fileName, { maxBytes: Number.POSITIVE_INFINITY });
      if (!opened.ok)
        throw usageError(`cannot read ${fileName} (${opened.reason}): check the path`);
      const { handle } = opened.file;
      try {
        // Streamed: a file of any size is read in pieces, and refused past ENVDATA_IMPORT_MAX_ROWS.
        const file = await readLocationFile(opened.file.text(), fileName, { maxRows })
          .catch((error: unknown) => {
            const code = errorCode(error);
            if (isEnvdataError(error) || code === undefined) throw error;
            throw usageError(`cannot read ${fileName} (${code}): check the path`);
          })
          .finally(() => handle.close());
        const needsService = file.entries.some((e) => e.kind === 'place');
        if (needsService) requireApiKey(context.config);
        const outcome = await context.withApp((app) =>
          importLocations(app.db, file, needsService ? app.serviceClient : undefined),
        );
        for (const warning of outcome.warnings) {
          context.io.stderr.write(`envdata: warning: ${fileName}: ${warning}\n`);
        }
        for (const location of outcome.locations) context.print(describeLocation(location));
        context.print(
          `imported ${outcome.locations.length} location(s) from ${fileName} ` +
            `(${outcome.geocodeCalls} geocoding call(s))`,
        );
      } catch (error) {
        if (!isEnvdataError(error) || error.code !== 'VALIDATION_FAILED') throw error;
        context.io.stderr.write(`envdata: ${fileName}: ${error.message}\n`);
        context.exitCode = 2; // a usage error: the file is wrong, nothing was written
      }
    });

  locations
    .command('list')
    .description('List registered locations (retired ones marked)')
    .option('--json', 'print one JSON document instead (shape: docs/json-output.md)')
    .action(async (options: { json?: boolean }) => {
      const { listLocations } = await import('../../locations/list-locations.js');
      const list = await context.withApp((app) => listLocations(app.db));
      if (options.json) {
        const { toLocationsJson } = await import('../json/locations-json.js');
        printJsonDocument(context, toLocationsJson(list, new Date()));
        return;
      }
      if (list.length === 0)
        context.print('no locations yet: `envdata locations add --place …` or `--lat … --lng …`');
      for (const l of list) {
        const flags = [
          l.answersToName ? undefined : `name reads as another's: id:${l.locationId} only`,
          l.aliases.length > 0 ? `also ${l.aliases.map((a) => `"${a}"`).join(', ')}` : undefined,
          l.ingestByPlace ? `by place "${l.place ?? ''}"` : undefined,
          l.retiredAt ? `retired ${l.retiredAt.toISOString().slice(0, 10)}` : undefined,
        ].filter((f) => f !== undefined);
        context.print(
          `${String(l.locationId).padStart(5)}  ${l.name.padEnd(24)} ${String(l.lat).padStart(9)} ${String(l.lng).padStart(10)}  ${l.countryCode ?? '--'}  ${l.timezone.padEnd(22)} ${l.pollenRegion}${flags.length > 0 ? `  (${flags.join(', ')})` : ''}`,
        );
      }
    });

  locations
    .command('remove')
    .description(
      'Retire locations: their facts stay queryable, new backfills and syncs skip them (--purge deletes them with all their data)',
    )
    .argument('<location...>', 'names or ids: Berlin, 12, id:12, name:12')
    .option('--purge', 'delete the locations and every fact, snapshot and ledger row of theirs')
    .option(
      '-y, --yes',
      'with --purge: confirm the deletion (asked on a terminal, required otherwise)',
    )
    .addHelpText('after', `\nReferences: ${LOCATION_REFERENCE_HELP}.`)
    .action(async (refs: string[], options: { purge?: boolean; yes?: boolean }) => {
      if (options.yes && !options.purge) throw usageError('--yes only confirms --purge');
      const [{ resolveLocations }, { countFacts, purgeLocations, retireLocations }] =
        await Promise.all([
          import('../../locations/resolve-locations.js'),
          import('../../ledger/remove-locations.js'),
        ]);
      await context.withApp(async (app) => {
        const found = await resolveLocations(app.db, refs);
        if (options.purge && !options.yes) {
          const facts = await countFacts(
            app.db,
            found.map((l) => l.locationId),
          );
          const total = [...facts.values()].reduce((a, b) => a + b, 0);
          const what =
            `--purge deletes ${found.length} location(s) (${found.map((l) => l.name).join(', ')}) ` +
            `and their ${total} fact row(s), snapshots and ledger rows, for good`;
          if (!process.stdin.isTTY) {
            throw usageError(`${what}: add --yes to confirm (nothing was deleted)`);
          }
          if (!(await confirm(process.stdin, context.io.stderr, `${what}. Delete?`))) {
            throw usageError('nothing was deleted (answer y to delete)');
          }
        }
        if (options.purge) {
          for (const r of await purgeLocations(app.db, found)) {
            context.print(
              `purged location ${r.location.locationId} ${r.location.name} and its ${r.facts} fact row(s)`,
            );
          }
          return;
        }
        for (const r of await retireLocations(app.db, found)) {
          const id = r.location.locationId;
          context.print(
            r.alreadyRetired
              ? `location ${id} ${r.location.name} was already retired; its ${r.facts} fact row(s) stay`
              : `retired location ${id} ${r.location.name}: its ${r.facts} fact row(s) stay queryable, ` +
                  `new backfills and syncs skip it (undo: \`envdata locations restore ${id}\`)`,
          );
        }
      });
    });

  locations
    .command('restore')
    .description('Make retired locations active again')
    .argument('<location...>', 'names or ids: Berlin, 12, id:12, name:12')
    .addHelpText('after', `\nReferences: ${LOCATION_REFERENCE_HELP}.`)
    .action(async (refs: string[]) => {
      const [{ resolveLocations }, { restoreLocations }] = await Promise.all([
        import('../../locations/resolve-locations.js'),
        import('../../ledger/remove-locations.js'),
      ]);
      await context.withApp(async (app) => {
        const restored = await restoreLocations(app.db, await resolveLocations(app.db, refs));
        for (const l of restored) context.print(`active again: ${describeLocation(l)}`);
      });
    });
}

function describeLocation(l: Location): string {
  const place =
    l.place === null ? '' : ` — place "${l.place}"${l.ingestByPlace ? ', pollen by place' : ''}`;
  return (
    `location ${l.locationId} ${l.name}: ${l.lat}, ${l.lng} ` +
    `${l.countryCode ?? '??'} ${l.timezone} (pollen region ${l.pollenRegion})${place}`
  );
}

function checkedCoordinate(flag: string, axis: CoordinateAxis, value: string): number {
  const parsed = parseCoordinate(axis, value);
  if (!parsed.ok) throw usageError(`${flag} ${parsed.reason}`);
  return parsed.value;
}

function checkedText(
  flag: string,
  kind: 'name' | 'place',
  value: string | undefined,
): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  const problem = locationTextMessage(flag, kind, trimmed);
  if (problem !== undefined) throw usageError(problem);
  return trimmed;
}

function checkedCountry(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseCountryCode(value);
  if (!parsed.ok) throw usageError(`--country ${parsed.reason}`);
  return parsed.code;
}
