import type { Command } from 'commander';
import { LOCATION_REFERENCE_HELP } from '../../locations/location-reference-help.js';
import type { CommandContext } from '../command-context.js';
import { collect, parseDatasetOption, parseHourBounds } from '../parse-cli-values.js';

interface RebuildOptions {
  dataset: string;
  from?: string;
  to?: string;
  location?: string[];
}

export function registerRebuildCommand(program: Command, context: CommandContext): void {
  program
    .command('rebuild')
    .description(
      'Rebuild fact rows from the archived raw payloads, without calling the service (after a normalization fix)',
    )
    .option('--dataset <dataset>', 'pollen, weather or all', 'all')
    .option('--from <date>', 'only chunks ending after this whole UTC hour (YYYY-MM-DD[ hh:00:00])')
    .option('--to <date>', 'only chunks starting before this whole UTC hour')
    .option(
      '--location <name|id>',
      'only this location: name, id, id:N or name:N (repeatable)',
      collect,
    )
    .addHelpText('after', `\nLocations: ${LOCATION_REFERENCE_HELP}.`)
    .action(async (options: RebuildOptions) => {
      // Every argument is checked before anything is touched.
      const datasets = parseDatasetOption(options.dataset);
      const { from, to } = parseHourBounds(options);
      const config = context.config;
      const [{ resolveLocations }, { rebuildWithLineage }] = await Promise.all([
        import('../../locations/resolve-locations.js'),
        import('../../landing/rebuild-from-archive.js'),
      ]);
      const outcome = await context.withApp(
        async (app) => {
          const locations = options.location?.length
            ? await resolveLocations(app.db, options.location)
            : undefined;
          const { inSpan } = await import('../../tracing/tracing.js');
          return inSpan('envdata.rebuild', () =>
            rebuildWithLineage(
              app.db,
              {
                datasets,
                ...(from && { from }),
                ...(to && { to }),
                ...(locations && { locationIds: locations.map((l) => l.locationId) }),
              },
              app.logger,
            ),
          );
        },
        config,
        { tracing: 'rebuild' },
      );
      context.print(
        `rebuilt ${outcome.chunks} chunk(s): ${outcome.rows} fact rows, ${outcome.rowsWritten} changed` +
          (outcome.failed.length
            ? `; ${outcome.failed.length} archived payload(s) unreadable`
            : ''),
      );
      if (outcome.failed.length > 0) context.exitCode = 1;
    });
}
