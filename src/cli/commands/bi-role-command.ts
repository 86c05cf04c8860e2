import type { Command } from 'commander';
import { databaseNameOf } from '../../warehouse/database-url.js';
import {
  BI_CONNECTION_LIMIT,
  BI_IDLE_IN_TRANSACTION_TIMEOUT,
  BI_ROLE,
  BI_STATEMENT_TIMEOUT,
} from '../../warehouse/bi-role-settings.js';
import type { LockFunctionFence } from '../../warehouse/fence-lock-functions.js';
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
      const { ensureBiRole } = await import('../../warehouse/ensure-bi-role.js');
      const report = await context.withApp(async (app) => ensureBiRole(app.db, password));
      const database = databaseNameOf(config.databaseUrl);
      context.print(
        `role ${BI_ROLE} can read schema analytics of database ${database}` +
          (password ? ' and log in with the password given' : ' (no login: use --password-stdin)'),
      );
      context.print(
        report.reset.length > 0
          ? `reset on role ${BI_ROLE}: ${report.reset.join('; ')}`
          : `role ${BI_ROLE} settings as documented: ${biRoleSettings()}`,
      );
      const { done, warnings } = fenceLines(report.fence, database);
      if (done !== undefined) context.print(done);
      for (const warning of warnings) context.io.stderr.write(`warning: ${warning}\n`);
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

function biRoleSettings(): string {
  return (
    `statement_timeout ${BI_STATEMENT_TIMEOUT}, idle_in_transaction_session_timeout ` +
    `${BI_IDLE_IN_TRANSACTION_TIMEOUT}, connection limit ${BI_CONNECTION_LIMIT}`
  );
}

/** What the fence of the advisory lock and large object functions did, or why it could not. */
function fenceLines(
  fence: LockFunctionFence,
  database: string,
): { done?: string; warnings: string[] } {
  const warnings: string[] = [];
  let done: string | undefined;
  if (fence.open.length === 0) {
    done =
      fence.revoked.length > 0
        ? `revoked ${fence.revoked.length} advisory lock and large object functions from PUBLIC in database ${database}: ${BI_ROLE} can take no lock envdata waits for and write no large object`
        : `advisory lock and large object functions already revoked from PUBLIC in database ${database}`;
  } else {
    warnings.push(
      `${fence.open.length} advisory lock and large object functions stay open to PUBLIC in database ${database} ` +
        `(only a superuser may revoke them): ${BI_ROLE} can still take locks envdata waits for and write large objects; ` +
        'run `envdata bi-role` once as a superuser (docs/warehouse.md, "Locks and large objects")',
    );
  }
  if (fence.missing.length > 0) {
    warnings.push(
      `this role may not call ${fence.missing.join(', ')}: envdata's feeder, pacer and migrations need them; ` +
        'a superuser grants them (docs/warehouse.md, "Locks and large objects")',
    );
  }
  return { done, warnings };
}
