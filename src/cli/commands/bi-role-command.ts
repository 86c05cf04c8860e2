import type { Command } from 'commander';
import { databaseNameOf } from '../../warehouse/database-url.js';
import { ensureBiRole } from '../../warehouse/ensure-bi-role.js';
import type { CommandContext } from '../command-context.js';
import { usageError } from '../usage-error.js';

export function registerBiRoleCommand(program: Command, context: CommandContext): void {
  program
    .command('bi-role')
    .description(
      'Create or refresh the read-only role envdata_bi (reads schema analytics only) for BI tools',
    )
    .option(
      '--password-stdin',
      'read a password from standard input and allow envdata_bi to log in',
    )
    .action(async (options: { passwordStdin?: boolean }) => {
      const config = context.config;
      let password: string | undefined;
      if (options.passwordStdin) {
        password = (await readAll(process.stdin)).replace(/\r?\n$/, '');
        if (password.length < 8) {
          throw usageError('the password read from standard input must be at least 8 characters');
        }
      }
      await context.withApp(async (app) => ensureBiRole(app.db, password));
      context.print(
        `role envdata_bi can read schema analytics of database ${databaseNameOf(config.databaseUrl)}` +
          (password ? ' and log in with the password given' : ' (no login: use --password-stdin)'),
      );
    });
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}
