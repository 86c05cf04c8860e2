import { sql, type Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import {
  BI_CONNECTION_LIMIT,
  BI_IDLE_IN_TRANSACTION_TIMEOUT,
  BI_STATEMENT_TIMEOUT,
} from './bi-role-settings.js';
import type { Database } from './schema.js';

/** The role settings envdata owns, with the values `resetBiRoleSettings` puts back. */
const BI_ROLE_SETTINGS: Readonly<Record<string, string>> = {
  statement_timeout: BI_STATEMENT_TIMEOUT,
  idle_in_transaction_session_timeout: BI_IDLE_IN_TRANSACTION_TIMEOUT,
};

/**
 * Puts the settings envdata owns of BI role `roleName` back to the documented values: removes
 * them from the role in the current database, sets them role-wide where they differ, and sets the
 * connection limit. Returns what it changed (`statement_timeout 0 → 60s`); with `dryRun`, what
 * it would change, changing nothing. Settings envdata does not own (an administrator's
 * `search_path`, say) stay as they are.
 *
 * `envdata bi-role` calls it, and so does the periodic check of every long-running process
 * (`checkBiRoles`): a BI session may `ALTER ROLE … SET statement_timeout = 0` for itself, and
 * PostgreSQL offers no way to forbid that. Changing another role's settings takes a superuser or
 * CREATEROLE.
 */
export async function resetBiRoleSettings(
  db: Kysely<Database> | Transaction<Database>,
  roleName: string,
  options: { readonly dryRun?: boolean } = {},
): Promise<string[]> {
  const { rows } = await sql<{ in_database: boolean; setting: string; database: string }>`
    select s.setdatabase <> 0 as in_database, c as setting, current_database() as database
    from pg_db_role_setting s, unnest(s.setconfig) c
    where s.setrole = (select oid from pg_roles where rolname = ${roleName})
      and s.setdatabase in (0, (select oid from pg_database where datname = current_database()))`.execute(
    db,
  );
  const change = async (statement: string): Promise<void> => {
    if (options.dryRun !== true) await sql.raw(statement).execute(db);
  };
  const role = pg.escapeIdentifier(roleName);
  const reset: string[] = [];
  for (const [name, value] of Object.entries(BI_ROLE_SETTINGS)) {
    const inDatabase = rows.find((r) => r.in_database && settingName(r.setting) === name);
    if (inDatabase !== undefined) {
      await change(
        `alter role ${role} in database ${pg.escapeIdentifier(inDatabase.database)} reset ${name}`,
      );
      reset.push(
        `${name} ${settingValue(inDatabase.setting)} in database ${inDatabase.database} removed`,
      );
    }
    const roleWide = rows.find((r) => !r.in_database && settingName(r.setting) === name);
    if (roleWide === undefined || settingValue(roleWide.setting) !== value) {
      await change(`alter role ${role} set ${name} = ${pg.escapeLiteral(value)}`);
      reset.push(
        `${name} ${roleWide === undefined ? '(none)' : settingValue(roleWide.setting)} → ${value}`,
      );
    }
  }
  const { rows: limit } = await sql<{ connection_limit: number }>`
    select rolconnlimit as connection_limit from pg_roles where rolname = ${roleName}`.execute(db);
  const connectionLimit = limit[0]?.connection_limit;
  if (connectionLimit !== BI_CONNECTION_LIMIT) {
    await change(`alter role ${role} connection limit ${BI_CONNECTION_LIMIT}`);
    reset.push(
      `connection limit ${connectionLimit === -1 ? 'none' : String(connectionLimit)} → ${BI_CONNECTION_LIMIT}`,
    );
  }
  return reset;
}

/** `statement_timeout` of `statement_timeout=0`. */
function settingName(setting: string): string {
  return setting.slice(0, setting.indexOf('='));
}

function settingValue(setting: string): string {
  return setting.slice(setting.indexOf('=') + 1);
}
