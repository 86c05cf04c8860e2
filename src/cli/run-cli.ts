import { type Command, CommanderError } from 'commander';
import { coerceError } from '../errors/coerce-error.js';
import { isEnvdataError } from '../errors/envdata-error.js';
import { isServiceUnavailable } from '../errors/is-service-unavailable.js';
import type { CliIo } from './cli-io.js';
import { CommandContext } from './command-context.js';
import { EnvdataCommand } from './envdata-command.js';
import { registerBackfillCommand } from './commands/backfill-command.js';
import { registerDeclaredCommands } from './commands/declared-command.js';
import { registerCertifyCommands } from './commands/certify-command.js';
import { registerExportCommands } from './commands/export-command.js';
import { registerBiRoleCommand } from './commands/bi-role-command.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerDbtSourcesCommand } from './commands/dbt-sources-command.js';
import { registerDemoCommand } from './commands/demo-command.js';
import { registerLocalCommand } from './commands/local-command.js';
import { registerLocationsCommand } from './commands/locations-command.js';
import { registerMigrateCommand } from './commands/migrate-command.js';
import { registerLineageCommand } from './commands/lineage-command.js';
import { registerNotifyCommand } from './commands/notify-command.js';
import { registerRebuildCommand } from './commands/rebuild-command.js';
import { registerResumeCommands } from './commands/resume-command.js';
import { registerRunControlCommands } from './commands/run-control-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerSimulateCommand } from './commands/simulate-command.js';
import { registerUpstreamCommand } from './commands/upstream-command.js';
import { registerWorkerCommand } from './commands/worker-command.js';
import { registerStatusCommand } from './commands/status-command.js';
import { registerSyncCommands } from './commands/sync-command.js';
import { examplesHelp } from './command-examples.js';
import { COMMAND_SUMMARIES } from './command-summaries.js';
import {
  ENVIRONMENT_HELP_POINTER,
  registerEnvironmentHelp,
} from './commands/environment-command.js';

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Errors in what the user asked for (flags, environment, names): exit 2, nothing was written. */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'USAGE',
  'CONFIG_INVALID',
  'CONFLICT',
  'NOT_FOUND',
]);

/** Builds the `envdata` program; each command is a thin shell over a library function. */
export function buildProgram(context: CommandContext): Command {
  const program = new EnvdataCommand('envdata')
    .description(
      'Build and keep a Postgres warehouse of pollen and weather history from the Environmental Data Service.',
    )
    .version('0.1.0', '-V, --version')
    .showHelpAfterError(usageHint('envdata'))
    .configureOutput({
      writeOut: (text) => context.io.stdout.write(text),
      writeErr: (text) => context.io.stderr.write(text),
    })
    .addHelpText('after', ENVIRONMENT_HELP_POINTER)
    .hook('preAction', () => context.prepare())
    .exitOverride();
  registerMigrateCommand(program, context);
  registerLocationsCommand(program, context);
  registerBackfillCommand(program, context);
  registerDeclaredCommands(program, context);
  registerWorkerCommand(program, context);
  registerServeCommand(program, context);
  registerResumeCommands(program, context);
  registerRunControlCommands(program, context);
  registerSyncCommands(program, context);
  registerStatusCommand(program, context);
  registerNotifyCommand(program, context);
  registerLineageCommand(program, context);
  registerDemoCommand(program, context);
  registerLocalCommand(program, context);
  registerBiRoleCommand(program, context);
  registerDbtSourcesCommand(program, context);
  registerRebuildCommand(program, context);
  registerUpstreamCommand(program, context);
  registerCertifyCommands(program, context);
  registerExportCommands(program, context);
  registerSimulateCommand(program, context);
  registerCompletionCommand(program, context);
  registerEnvironmentHelp(program, context);
  for (const command of program.commands) {
    const summary = COMMAND_SUMMARIES[command.name()];
    if (summary !== undefined) command.summary(summary);
  }
  const withHelpHints = (parent: Command, path: string): void => {
    for (const command of parent.commands) {
      const name = `${path} ${command.name()}`;
      command.exitOverride().showHelpAfterError(usageHint(name));
      const examples = examplesHelp(name.replace(/^envdata /, ''));
      if (examples !== undefined) command.addHelpText('after', examples);
      withHelpHints(command, name);
    }
  };
  withHelpHints(program, 'envdata');
  return program;
}

/** The line after a usage error: where the command's flags and arguments are described. */
function usageHint(commandPath: string): string {
  return `(run \`${commandPath} --help\` for usage)`;
}

/** `envdata locations add` for the command `add` under `locations`. */
function commandPathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Runs one `envdata` invocation and returns its exit code: 0 success, 1 failure, 2 usage error.
 * Expected failures print one line naming what failed and what to do; no stack trace. Only a
 * usage error (a flag or argument the command cannot take) adds where its usage is described:
 * a missing run, a duplicate, a refused key or a down service is not helped by `--help`.
 * Postgres or Redis going away mid-command is expected too (one line naming which); "please
 * report it" with a stack is for bugs only.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const context = new CommandContext(io);
  const program = buildProgram(context);
  let commandPath = 'envdata';
  program.hook('preAction', (_program, action) => {
    commandPath = commandPathOf(action);
  });
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return EXIT.usage;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (thrown) {
    if (thrown instanceof CommanderError) {
      // Help and version exit through here too, with code 0.
      return thrown.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const error = coerceError(thrown);
    if (isServiceUnavailable(error) && !isEnvdataError(error)) {
      // Postgres or Redis went away under a command: an outage, not a bug to report.
      const { describeUnavailable } = await import('./describe-unavailable.js');
      io.stderr.write(`envdata: ${await describeUnavailable(context.config, error)}\n`);
      return EXIT.failure;
    }
    if (isEnvdataError(error)) {
      io.stderr.write(`envdata: ${error.message}\n`);
      if (error.code === 'USAGE') io.stderr.write(`${usageHint(commandPath)}\n`);
      return USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failure;
    }
    io.stderr.write(
      `envdata: unexpected error — please report it\n${error.stack ?? error.message}\n`,
    );
    return EXIT.failure;
  }
}
