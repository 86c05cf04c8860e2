import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { parseWholeNumber } from '../parse-cli-values.js';

/** The demo's backfill of weather, in years: 10 unless `--weather-years` says. */
const DEMO_WEATHER_YEARS = 10;

export function registerDemoCommand(program: Command, context: CommandContext): void {
  program
    .command('demo')
    .description(
      `Run envdata end to end against the built-in simulator: migrate, register 4 locations, backfill 3 months of pollen and ${DEMO_WEATHER_YEARS} years of weather, show a query (on a local PostgreSQL, and with the queue in it, when nothing answers at DATABASE_URL or REDIS_URL)`,
    )
    .option(
      '--weather-years <n>',
      `years of hourly weather to backfill, 1 to 30 (default ${DEMO_WEATHER_YEARS}; 1 is a quicker demo)`,
    )
    .action(async (options: { weatherYears?: string }) => {
      const weatherYears =
        options.weatherYears === undefined
          ? DEMO_WEATHER_YEARS
          : parseWholeNumber('--weather-years', options.weatherYears, { min: 1, max: 30 });
      const { runDemoCommand } = await import('../run-demo-command.js');
      await runDemoCommand(context, { weatherYears });
    });
}
