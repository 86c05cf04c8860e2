import type { Command } from 'commander';
import { databaseNameOf } from '../../warehouse/database-url.js';
import { BI_ROLE, ensureBiRole } from '../../warehouse/ensure-bi-role.js';
import type { CommandContext } from '../command-context.js';
import { promptSecret } from '../prompt-secret.js';
import { usageError } from '../usage-error.js';

export function registerBiRoleCommand(program: Command, context: CommandContext): void {
  program
    .command('bi-role')
    .description(
      `Create or refresh the read-only role ${BI_ROLE} (reads schema analytics only) for BI tools; the role is server-wide: one for every database of this PostgreSQL server`,
    )
    .option(
      '--password-stdin',
      `read a password from standard input (asked for, not shown, on a terminal) and allow ${BI_ROLE} to log in`,
    )
    .action(async (options: { passwordStdin?: boolean }) => {
      const config = context.config;
      let password: string | undefined;
      if (options.passwordStdin) {
        password = process.stdin.isTTY
          ? await askTwice(context)
          : (await readAll(process.stdin)).replace(/\r?\n$/, '');
        if (password.length < 8) {
          throw usageError(`the password for ${BI_ROLE} must be at least 8 characters`);
        }
      }
      await context.withApp(async (app) => ensureBiRole(app.db, password));
      context.print(
        `role ${BI_ROLE} can read schema analytics of database ${databaseNameOf(config.databaseUrl)}` +
          (password ? ' and log in with the password given' : ' (no login: use --password-stdin)'),
      );
      context.print(
        `note: ${BI_ROLE} is a role of the whole PostgreSQL server, shared by every database on it ` +
          '(docs/warehouse.md says what to revoke so it reads this warehouse only)',
      );
    });
}

/** On a terminal: the password twice, not shown. */
async function askTwice(context: CommandContext): Promise<string> {
  const first = await promptSecret(
    process.stdin,
    context.io.stderr,
    `password for ${BI_ROLE} (not shown): `,
  );
  const second = await promptSecret(process.stdin, context.io.stderr, 'the same again: ');
  if (first !== second) throw usageError('the two passwords differ: nothing was changed');
  return first;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}
