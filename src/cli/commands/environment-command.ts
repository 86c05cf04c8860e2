import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { environmentHelp } from '../environment-help.js';

/** The line of `envdata --help` that points to the environment variables. */
export const ENVIRONMENT_HELP_POINTER =
  '\nEnvironment variables (database, API key, limits, …): `envdata help environment`';

/**
 * `envdata help environment`: every environment variable with its default and allowed values.
 * A help topic, not a command one runs, so it is hidden from the command list; `envdata --help`
 * names it in one line instead of printing the whole table, and stays one screen long.
 */
export function registerEnvironmentHelp(program: Command, context: CommandContext): void {
  program
    .command('environment', { hidden: true })
    .description('Every environment variable envdata reads, with its default and allowed values')
    .configureHelp({ formatHelp: () => environmentHelp().trimStart() })
    .action(() => {
      context.io.stdout.write(environmentHelp().trimStart());
    });
}
