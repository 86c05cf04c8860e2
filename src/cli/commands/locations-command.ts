import type { Command } from 'commander';
import { nearestPlace } from '../../geo/nearest-place.js';
import { insertLocation, toLocation } from '../../locations/insert-location.js';
import type { CommandContext } from '../command-context.js';
import { usageError } from '../usage-error.js';

interface AddOptions {
  name?: string;
  lat: string;
  lng: string;
  country?: string;
}

function parseCoordinate(flag: string, value: string, limit: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || Math.abs(n) > limit) {
    throw usageError(`${flag} must be a number in [-${limit}, ${limit}] (got "${value}")`);
  }
  return n;
}

export function registerLocationsCommand(program: Command, context: CommandContext): void {
  const locations = program.command('locations').description('Register and list locations');

  locations
    .command('add')
    .description(
      'Register a location by coordinates; country, time zone and pollen region are computed locally',
    )
    .requiredOption('--lat <lat>', 'latitude in [-90, 90]')
    .requiredOption('--lng <lng>', 'longitude in [-180, 180]')
    .option('--name <name>', 'a unique name (default: the nearest place in the gazetteer)')
    .option('--country <code>', 'ISO 3166-1 alpha-2 country code (default: from the gazetteer)')
    .action(async (options: AddOptions) => {
      const lat = parseCoordinate('--lat', options.lat, 90);
      const lng = parseCoordinate('--lng', options.lng, 180);
      if (options.country !== undefined && !/^[A-Za-z]{2}$/.test(options.country)) {
        throw usageError(
          `--country must be a two-letter code such as DE (got "${options.country}")`,
        );
      }
      if (options.name !== undefined && options.name.trim() === '') {
        throw usageError('--name must not be empty');
      }
      const near = nearestPlace(lat, lng);
      const name = options.name ?? near?.name;
      if (name === undefined) {
        throw usageError(`no place is known near ${lat}, ${lng}: give it a --name`);
      }
      const config = context.config;
      const location = await context.withApp(
        (app) =>
          insertLocation(app.db, {
            name,
            lat,
            lng,
            countryCode: options.country ?? near?.countryCode ?? null,
            registeredBy: 'coordinates',
          }),
        config,
      );
      context.print(
        `location ${location.locationId} ${location.name}: ${location.lat}, ${location.lng} ` +
          `${location.countryCode ?? '??'} ${location.timezone} (pollen region ${location.pollenRegion})`,
      );
    });

  locations
    .command('list')
    .description('List registered locations')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const rows = await context.withApp((app) =>
        app.db.selectFrom('location').selectAll().orderBy('location_id').execute(),
      );
      const list = rows.map(toLocation);
      if (options.json) {
        context.print(JSON.stringify(list, null, 2));
        return;
      }
      if (list.length === 0)
        context.print('no locations yet: `envdata locations add --lat … --lng …`');
      for (const l of list) {
        context.print(
          `${String(l.locationId).padStart(5)}  ${l.name.padEnd(24)} ${String(l.lat).padStart(9)} ${String(l.lng).padStart(10)}  ${l.countryCode ?? '--'}  ${l.timezone.padEnd(22)} ${l.pollenRegion}`,
        );
      }
    });
}
