import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

/**
 * The functions of `pg_catalog` a reader could hold up envdata's writers with, or write with:
 * every advisory lock function (session and transaction, shared and exclusive, both key forms;
 * advisory locks are one keyspace per database that every role reaches), and every large object
 * function (a large object is written by anyone who may call them: `lo_compat_privileges` off
 * only guards existing objects). Matched by name so that no overload is missed.
 */
const ADVISORY_LOCK_FUNCTIONS = '^pg_(try_)?advisory_';
const LARGE_OBJECT_FUNCTIONS = '^(lo_.*|loread|lowrite)$';

/** Where the fence of the lock and large object functions stands in the current database. */
export interface LockFunctionFence {
  /** Functions this call revoked from `PUBLIC` (`pg_catalog.name(args)`). */
  readonly revoked: readonly string[];
  /** Functions `PUBLIC` may still call, so `envdata_bi` too: empty once fenced. */
  readonly open: readonly string[];
  /** Advisory lock functions the current role may not call: envdata's locks would fail. */
  readonly missing: readonly string[];
  /** Whether the current role may change the functions' privileges (a superuser). */
  readonly mayChange: boolean;
}

interface FunctionRow {
  signature: string;
  advisory: boolean;
  public_execute: boolean;
  mine: boolean;
  may_change: boolean;
}

/**
 * Revokes `EXECUTE` on the advisory lock and large object functions from `PUBLIC` in the current
 * database, and grants the advisory lock functions back to the database owner and the current
 * role (envdata takes its locks as them: the feeder, the pacer, the migrator, the partition
 * creator). Function privileges live in each database's catalog, so other databases keep theirs.
 *
 * Only the functions' owner, the bootstrap superuser, may change them: as any other role (a
 * managed server's admin role, say) nothing changes and the result says what stays open.
 */
export async function fenceLockFunctions(db: Kysely<Database>): Promise<LockFunctionFence> {
  const before = await readLockFunctions(db);
  const mayChange = before.length > 0 && before.every((f) => f.may_change);
  if (!mayChange) return fenceOf(before, [], false);
  const advisory = before.filter((f) => f.advisory).map((f) => f.signature);
  const owner = await databaseOwner(db);
  await sql
    .raw(
      `grant execute on function ${advisory.join(', ')} to ${pg.escapeIdentifier(owner)}, current_user`,
    )
    .execute(db);
  await sql
    .raw(`revoke execute on function ${before.map((f) => f.signature).join(', ')} from public`)
    .execute(db);
  const revoked = before.filter((f) => f.public_execute).map((f) => f.signature);
  return fenceOf(await readLockFunctions(db), revoked, true);
}

/** The fence as it stands, changing nothing. */
export async function readLockFunctionFence(db: Kysely<Database>): Promise<LockFunctionFence> {
  const functions = await readLockFunctions(db);
  return fenceOf(functions, [], functions.length > 0 && functions.every((f) => f.may_change));
}

function fenceOf(
  functions: readonly FunctionRow[],
  revoked: readonly string[],
  mayChange: boolean,
): LockFunctionFence {
  return {
    revoked,
    open: functions.filter((f) => f.public_execute).map((f) => f.signature),
    missing: functions.filter((f) => f.advisory && !f.mine).map((f) => f.signature),
    mayChange,
  };
}

async function readLockFunctions(db: Kysely<Database>): Promise<FunctionRow[]> {
  const { rows } = await sql<FunctionRow>`
    select format('pg_catalog.%I(%s)', p.proname, pg_get_function_identity_arguments(p.oid))
        as signature,
      p.proname ~ ${ADVISORY_LOCK_FUNCTIONS} as advisory,
      (p.proacl is null or exists (
        select 1 from aclexplode(p.proacl) a
        where a.grantee = 0 and a.privilege_type = 'EXECUTE')) as public_execute,
      has_function_privilege(p.oid, 'EXECUTE') as mine,
      pg_has_role(p.proowner, 'USAGE') as may_change
    from pg_proc p
    where p.pronamespace = 'pg_catalog'::regnamespace
      and (p.proname ~ ${ADVISORY_LOCK_FUNCTIONS} or p.proname ~ ${LARGE_OBJECT_FUNCTIONS})
    order by 1`.execute(db);
  return rows;
}

async function databaseOwner(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ owner: string }>`
    select pg_get_userbyid(datdba) as owner from pg_database
    where datname = current_database()`.execute(db);
  return rows[0]!.owner;
}
