import type { Command } from 'commander';
import { databaseNameOf } from '../../warehouse/database-url.js';
import {
  BI_CONNECTION_LIMIT,
  BI_IDLE_IN_TRANSACTION_TIMEOUT,
  BI_ROLE,
  BI_STATEMENT_TIMEOUT,
  biRoleNameProblem,
} from '../../warehouse/bi-role-settings.js';
import type { LockFunctionFence } from '../../warehouse/fence-lock-functions.js';
import type { CommandContext } from '../command-context.js';
import { promptSecret } from '../prompt-secret.js';
import { usageError } from '../usage-error.js';

export function registerBiRoleCommand(program: Command, context: CommandContext): void {
  program
    .command('bi-role')
    .description(
      'Create or refresh a read-only role (reads schema analytics only) for BI tools; a role belongs to the whole PostgreSQL server: where several warehouses share one, give each its own with --role',
    )
    .option(
      '--role <name>',
      'the role to create or refresh: a plain lower-case identifier, one per warehouse on a shared server',
      BI_ROLE,
    )
    .option(
      '--password-stdin',
      'read a password from standard input (asked for, not shown, on a terminal) and allow the role to log in',
    )
    .action(async (options: { role: string; passwordStdin?: boolean }) => {
      const config = context.config;
      const role = options.role;
      const problem = biRoleNameProblem(role);
      if (problem !== undefined) throw usageError(`--role: ${problem}`);
      let password: string | undefined;
      if (options.passwordStdin) {
        password = process.stdin.isTTY
          ? await askTwice(context, role)
          : (await readAll(process.stdin)).replace(/\r?\n$/, '');
        if (password.length < 8) {
          throw usageError(`the password for ${role} must be at least 8 characters`);
        }
      }
      const { ensureBiRole } = await import('../../warehouse/ensure-bi-role.js');
      const report = await context.withApp(async (app) =>
        ensureBiRole(app.db, { role, ...(password !== undefined && { password }) }),
      );
      const database = databaseNameOf(config.databaseUrl);
      context.print(`role ${role} can read schema analytics of database ${database}`);
      context.print(loginLine(role, report.canLogIn, password !== undefined));
      context.print(
        report.reset.length > 0
          ? `reset on role ${role}: ${report.reset.join('; ')}`
          : `role ${role} settings as documented: ${biRoleSettings()}`,
      );
      const { done, warnings } = fenceLines(report.fence, database, role);
      if (done !== undefined) context.print(done);
      for (const warning of warnings) context.io.stderr.write(`warning: ${warning}\n`);
      context.print(
        `note: ${role} is a role of the whole PostgreSQL server: its password and settings are the ` +
          'same in every database on it; give another warehouse on this server its own with --role ' +
          '(docs/warehouse.md, "Connecting", says what to revoke so it reads this warehouse only)',
      );
    });
}

/** The role's login as PostgreSQL has it now (`rolcanlogin`), not as this run meant it. */
function loginLine(role: string, canLogIn: boolean, passwordGiven: boolean): string {
  if (!canLogIn) {
    return `role ${role} cannot log in (no password set): give one with --password-stdin`;
  }
  return `role ${role} can log in${passwordGiven ? ' with the password given' : ' (password unchanged)'}`;
}

/** On a terminal: the password twice, not shown. */
async function askTwice(context: CommandContext, role: string): Promise<string> {
  const first = await promptSecret(
    process.stdin,
    context.io.stderr,
    `password for ${role} (not shown): `,
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
  role: string,
): { done?: string; warnings: string[] } {
  const warnings: string[] = [];
  let done: string | undefined;
  if (fence.open.length === 0) {
    done =
      fence.revoked.length > 0
        ? `revoked ${fence.revoked.length} advisory lock and large object functions from PUBLIC in database ${database}: ${role} can take no lock envdata waits for and write no large object`
        : `advisory lock and large object functions already revoked from PUBLIC in database ${database}`;
  } else {
    warnings.push(
      `${fence.open.length} advisory lock and large object functions stay open to PUBLIC in database ${database} ` +
        `(only a superuser may revoke them): ${role} can still take locks envdata waits for and write large objects; ` +
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
