import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BI_CONNECTION_LIMIT,
  BI_STATEMENT_TIMEOUT,
  ensureBiRole,
} from '../../src/warehouse/ensure-bi-role.js';
import {
  fenceLockFunctions,
  readLockFunctionFence,
} from '../../src/warehouse/fence-lock-functions.js';
import { migrateToLatest } from '../../src/warehouse/migrate-to-latest.js';
import { PostgresWindowCounters } from '../../src/admission/postgres-window-counters.js';
import * as fenceMigration from '../../migrations/2026_11_26_0022_fence_lock_functions.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import type { Database } from '../../src/warehouse/schema.js';
import { runOnTerminal } from '../harness/run-on-terminal.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const PASSWORD = `bi-${randomBytes(8).toString('hex')}`;
/** A role of the test that owns the test database, as the app's role would in production. */
const APP_ROLE = `envdata_app_${randomBytes(4).toString('hex')}`;
let biCouldLogIn = false;
let adminUser = '';
/** The lock and large object functions PUBLIC could call once migrated, before `bi-role`. */
let openAfterMigrations: readonly string[] = [];

beforeAll(async () => {
  const { rows } = await sql<{ login: boolean | null; me: string }>`
    select (select rolcanlogin from pg_roles where rolname = 'envdata_bi') as login,
      current_user as me`.execute(wh.app.db);
  biCouldLogIn = rows[0]?.login === true;
  adminUser = rows[0]!.me;
  await sql.raw(`create role ${APP_ROLE} login password '${PASSWORD}'`).execute(wh.app.db);
  await sql
    .raw(`alter database ${pg.escapeIdentifier(databaseName())} owner to ${APP_ROLE}`)
    .execute(wh.app.db);
  openAfterMigrations = (await readLockFunctionFence(wh.app.db)).open;
  // Logins below need one: the role is cluster-wide, so it is put back as it was after the file.
  await ensureBiRole(wh.app.db, { password: PASSWORD });
});
afterAll(async () => {
  await sql
    .raw(
      `alter database ${pg.escapeIdentifier(databaseName())} owner to ${pg.escapeIdentifier(adminUser)}`,
    )
    .execute(wh.app.db);
  // DROP OWNED also revokes what it was granted here: the advisory lock functions, as owner.
  await sql.raw(`drop owned by ${APP_ROLE}`).execute(wh.app.db);
  await sql.raw(`drop role if exists ${APP_ROLE}`).execute(wh.app.db);
  if (!biCouldLogIn) await sql`alter role envdata_bi nologin password null`.execute(wh.app.db);
});

function databaseName(): string {
  return new URL(wh.env.databaseUrl).pathname.slice(1);
}

/** Runs `body` on a fresh session logged in as `user` (role settings apply at login only). */
async function loggedInAs<T>(user: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(wh.env.databaseUrl);
  url.username = user;
  url.password = PASSWORD;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/** The SQLSTATE `statement` fails with on `client`, or 'ok'. */
async function attempt(client: pg.Client, statement: string): Promise<string> {
  try {
    await client.query(statement);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? 'unknown';
  }
}

/** Runs `statement` as envdata_bi; returns the SQLSTATE it failed with, or 'ok'. */
async function asBi(db: Kysely<Database>, statement: string): Promise<string> {
  return db.connection().execute(async (conn) => {
    await sql`set role envdata_bi`.execute(conn);
    try {
      await sql.raw(statement).execute(conn);
      return 'ok';
    } catch (error) {
      return (error as { code?: string }).code ?? 'unknown';
    } finally {
      await sql`reset role`.execute(conn);
    }
  });
}

describe('the envdata_bi role', () => {
  it('reads every analytics view', async () => {
    await ensureBiRole(wh.app.db);
    for (const view of [
      'locations',
      'pollen_hourly',
      'pollen_species_hourly',
      'weather_hourly',
      'pollen_daily',
      'weather_daily',
      'forecast_accuracy',
      'forecast_accuracy_daily',
      'coverage',
      'dataset_freshness',
      'pollen_forecast',
      'pollen_species_forecast',
      'weather_forecast',
      'pollen_latest',
      'weather_latest',
      'pollen_hour_status',
      'weather_hour_status',
      'answers',
      'weather_hourly_source',
      'pollen_hourly_source',
      'pollen_species_hourly_source',
      'weather_hourly_revisions',
      'pollen_hourly_revisions',
      'pollen_species_hourly_revisions',
      'weather_hourly_as_of(now())',
      'pollen_hourly_as_of(now())',
      'pollen_species_hourly_as_of(now())',
    ]) {
      expect(await asBi(wh.app.db, `select * from analytics.${view} limit 1`), view).toBe('ok');
    }
    expect(
      await asBi(
        wh.app.db,
        "select * from analytics.hour_status('weather', 1, now() - interval '1 day')",
      ),
    ).toBe('ok');
  });

  it('has every view and function of analytics granted back by `envdata bi-role`', async () => {
    await sql`
      revoke select on all tables in schema analytics from envdata_bi;
      revoke execute on all functions in schema analytics from envdata_bi`.execute(wh.app.db);
    await ensureBiRole(wh.app.db);
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_class c
      where c.relnamespace = 'analytics'::regnamespace and c.relkind in ('v', 'm', 'r')
        and not has_table_privilege('envdata_bi', c.oid, 'SELECT')
      union all
      select p.oid::regprocedure::text from pg_proc p
      where p.pronamespace = 'analytics'::regnamespace
        and not has_function_privilege('envdata_bi', p.oid, 'EXECUTE')`.execute(wh.app.db);
    expect(rows).toEqual([]);
  });

  it('cannot read outside analytics', async () => {
    expect(await asBi(wh.app.db, 'select * from envdata.weather_hourly limit 1')).toBe('42501');
    expect(await asBi(wh.app.db, 'select * from envdata.chunk limit 1')).toBe('42501');
    expect(await asBi(wh.app.db, 'select * from public.envdata_migration limit 1')).toBe('42501');
  });

  it('cannot write anything', async () => {
    expect(
      await asBi(wh.app.db, 'insert into analytics.locations (location_id) values (1)'),
    ).not.toBe('ok');
    expect(await asBi(wh.app.db, 'delete from analytics.weather_hourly')).not.toBe('ok');
    expect(await asBi(wh.app.db, 'create table analytics.mine (x int)')).toBe('42501');
    const { rows } = await sql<{ writable: number }>`
      select count(*)::int as writable from information_schema.tables t
      where t.table_schema = 'analytics'
        and (has_table_privilege('envdata_bi', format('%I.%I', t.table_schema, t.table_name), 'INSERT')
          or has_table_privilege('envdata_bi', format('%I.%I', t.table_schema, t.table_name), 'UPDATE')
          or has_table_privilege('envdata_bi', format('%I.%I', t.table_schema, t.table_name), 'DELETE'))`.execute(
      wh.app.db,
    );
    expect(rows[0]!.writable).toBe(0);
  });
});

describe('the envdata_bi role is fenced', () => {
  it('cannot create temporary tables, while the owner of the database still can', async () => {
    await loggedInAs('envdata_bi', async (bi) => {
      expect(await attempt(bi, 'create temp table scratch (x int)')).toBe('42501');
      expect(await attempt(bi, 'select count(*) from analytics.locations')).toBe('ok');
    });
    await loggedInAs(APP_ROLE, async (owner) => {
      expect(await attempt(owner, 'create temp table scratch (x int)')).toBe('ok');
    });
    const { rows } = await sql<{ public_temp: number }>`
      select count(*)::int as public_temp from pg_database d, aclexplode(d.datacl) a
      where d.datname = current_database() and a.grantee = 0
        and a.privilege_type = 'TEMPORARY'`.execute(wh.app.db);
    expect(rows[0]!.public_temp).toBe(0);
  });

  it('logs in with a default statement timeout and a connection limit', async () => {
    await loggedInAs('envdata_bi', async (bi) => {
      const { rows } = await bi.query<{ statement_timeout: string }>('show statement_timeout');
      expect(rows[0]!.statement_timeout).toBe('1min');
    });
    expect(BI_STATEMENT_TIMEOUT).toBe('60s');
    const { rows } = await sql<{ limit: number }>`
      select rolconnlimit as limit from pg_roles where rolname = 'envdata_bi'`.execute(wh.app.db);
    expect(rows[0]!.limit).toBe(BI_CONNECTION_LIMIT);
  });

  it('has its role settings put back by every `envdata bi-role`, which says what it reset', async () => {
    // What a BI user may do to its own role, role-wide and in this database (which overrides it);
    // the connection limit takes an administrator (CREATEROLE), so the test stands in for one.
    await loggedInAs('envdata_bi', async (bi) => {
      expect(await attempt(bi, 'alter role envdata_bi set statement_timeout = 0')).toBe('ok');
      expect(
        await attempt(
          bi,
          `alter role envdata_bi in database ${pg.escapeIdentifier(databaseName())} set statement_timeout = '1h'`,
        ),
      ).toBe('ok');
      expect(
        await attempt(bi, 'alter role envdata_bi set idle_in_transaction_session_timeout = 0'),
      ).toBe('ok');
      expect(await attempt(bi, 'alter role envdata_bi connection limit 500')).toBe('42501');
    });
    await sql`alter role envdata_bi connection limit 500`.execute(wh.app.db);
    await loggedInAs('envdata_bi', async (bi) => {
      const { rows } = await bi.query<{ statement_timeout: string }>('show statement_timeout');
      expect(rows[0]!.statement_timeout).toBe('1h');
    });

    const run = await runCliInProcess(['bi-role'], cliEnv());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `reset on role envdata_bi: statement_timeout 1h in database ${databaseName()} removed; ` +
        'statement_timeout 0 → 60s; idle_in_transaction_session_timeout 0 → 60s; connection limit 500 → 30',
    );
    await loggedInAs('envdata_bi', async (bi) => {
      const { rows } = await bi.query<{ statement: string; idle: string }>(
        `select current_setting('statement_timeout') as statement,
          current_setting('idle_in_transaction_session_timeout') as idle`,
      );
      expect(rows[0]).toEqual({ statement: '1min', idle: '1min' });
    });
    const { rows } = await sql<{ setdatabase: number; setconfig: string[] }>`
      select s.setdatabase::int as setdatabase, s.setconfig from pg_db_role_setting s
      where s.setrole = 'envdata_bi'::regrole
        and s.setdatabase in (0, (select oid from pg_database where datname = current_database()))`.execute(
      wh.app.db,
    );
    expect(rows).toEqual([
      {
        setdatabase: 0,
        setconfig: expect.arrayContaining([
          'statement_timeout=60s',
          'idle_in_transaction_session_timeout=60s',
        ]) as unknown,
      },
    ]);
    const { rows: limit } = await sql<{ limit: number }>`
      select rolconnlimit as limit from pg_roles where rolname = 'envdata_bi'`.execute(wh.app.db);
    expect(limit[0]!.limit).toBe(BI_CONNECTION_LIMIT);

    const again = await runCliInProcess(['bi-role'], cliEnv());
    expect(again.stdout).toContain(
      'role envdata_bi settings as documented: statement_timeout 60s, idle_in_transaction_session_timeout 60s, connection limit 30',
    );
    expect(again.stdout).toContain(
      `advisory lock and large object functions already revoked from PUBLIC in database ${databaseName()}`,
    );
  });
});

/** Every advisory lock and large object function of pg_catalog, with arguments to call it by. */
async function lockAndLargeObjectFunctions(): Promise<{ name: string; call: string }[]> {
  const { rows } = await sql<{ name: string; arg_types: string[] }>`
    select format('%s(%s)', p.proname, pg_get_function_identity_arguments(p.oid)) as name,
      array(select format_type(t, null) from unnest(p.proargtypes) t) as arg_types
    from pg_proc p
    where p.pronamespace = 'pg_catalog'::regnamespace
      and (p.proname ~ '^pg_(try_)?advisory_' or p.proname ~ '^(lo_.*|loread|lowrite)$')
    order by 1`.execute(wh.app.db);
  // Real values, not NULLs: a strict function of a NULL constant is folded away unexecuted.
  const argument: Record<string, string> = {
    bigint: '1::bigint',
    integer: '1',
    oid: '1::oid',
    bytea: `'\\x78'::bytea`,
    text: `'/tmp/envdata-bi-role-test'`,
  };
  return rows.map((row) => {
    const name = row.name;
    const args = row.arg_types.map((t) => {
      const value = argument[t];
      if (value === undefined) throw new Error(`no test argument for type ${t} of ${name}`);
      return value;
    });
    return {
      name,
      call: `select pg_catalog.${name.slice(0, name.indexOf('('))}(${args.join(', ')})`,
    };
  });
}

describe('envdata_bi cannot hold up writers', () => {
  it('finds the lock and large object functions revoked from PUBLIC by the migrations', () => {
    expect(openAfterMigrations).toEqual([]);
  });

  it('is refused every advisory lock and large object function, as a real login', async () => {
    const functions = await lockAndLargeObjectFunctions();
    const names = functions.map((f) => f.name);
    // Each form the issue names: session and transaction, shared and exclusive, both key forms.
    expect(names).toEqual(
      expect.arrayContaining([
        'pg_advisory_lock(bigint)',
        'pg_advisory_lock(integer, integer)',
        'pg_advisory_lock_shared(bigint)',
        'pg_try_advisory_lock(bigint)',
        'pg_advisory_xact_lock(bigint)',
        'pg_try_advisory_xact_lock_shared(integer, integer)',
        'pg_advisory_unlock_all()',
        'lo_from_bytea(oid, bytea)',
        'lo_create(oid)',
        'lo_creat(integer)',
        'lo_open(oid, integer)',
        'lo_put(oid, bigint, bytea)',
        'lowrite(integer, bytea)',
        'lo_import(text)',
        'lo_export(oid, text)',
        'lo_unlink(oid)',
      ]),
    );
    const tried = await loggedInAs('envdata_bi', async (bi) => {
      const outcome: Record<string, string> = {};
      for (const f of functions) outcome[f.call] = await attempt(bi, f.call);
      return outcome;
    });
    // The diff of a failure lists every call tried and what it got.
    expect(tried).toEqual(Object.fromEntries(functions.map((f) => [f.call, '42501'])));
    expect(functions.length).toBeGreaterThanOrEqual(40);
    const { rows } = await sql<{ lo_compat_privileges: string }>`
      show lo_compat_privileges`.execute(wh.app.db);
    expect(rows[0]!.lo_compat_privileges).toBe('off');
  });

  it('leaves the advisory locks to the database owner and the role that migrated', async () => {
    await loggedInAs(APP_ROLE, async (owner) => {
      expect(await attempt(owner, 'select pg_try_advisory_lock(hashtext($$envdata.test$$))')).toBe(
        'ok',
      );
    });
    expect(await asBi(wh.app.db, 'select pg_advisory_unlock_all()')).toBe('42501');
    const { rows } = await sql<{ ok: boolean }>`
      select pg_try_advisory_xact_lock(hashtext('envdata.test')) as ok`.execute(wh.app.db);
    expect(rows[0]!.ok).toBe(true);
  });

  it("leaves the feeder, the pacer, the partition creator and the migrator unblocked by a BI session that tried each of envdata's locks", async () => {
    const url = new URL(wh.env.databaseUrl);
    url.username = 'envdata_bi';
    url.password = PASSWORD;
    const bi = new pg.Client({ connectionString: url.toString() });
    await bi.connect();
    try {
      const keys = [
        `hashtext('envdata.feeder')`,
        `hashtext('envdata.migrate')`,
        `hashtext('envdata.partitions')`,
        `hashtext('envdata:pace:bi-role-test')`,
        // Kysely's Migrator takes this one (PostgresAdapter.acquireMigrationLock).
        `3853314791062309107`,
      ];
      // Autocommit, one statement each: a lock taken would be held by the open session while
      // the writers below run (the feeder would find its lock taken, the others would wait).
      const tried: Record<string, string> = {};
      for (const key of keys) {
        for (const fn of ['pg_advisory_lock', 'pg_advisory_lock_shared']) {
          tried[`${fn}(${key})`] = await attempt(bi, `select ${fn}(${key})`);
        }
      }
      const location = await wh.addLocation({
        name: 'bi-role feeder',
        lat: 52.52,
        lng: 13.405,
        countryCode: 'DE',
      });
      const chunkId = await wh.planChunk(
        'weather',
        location.locationId,
        new Date('2024-06-02T00:00:00Z'),
        new Date('2024-06-04T00:00:00Z'),
      );
      const { rows: chunk } = await sql<{ status: string }>`
        select status::text from envdata.chunk where chunk_id = ${chunkId}`.execute(wh.app.db);
      expect(chunk[0]!.status).toBe('queued');
      const slot = await new PostgresWindowCounters(() => wh.app.db).reserve(
        'bi-role-test',
        5,
        1000,
      );
      expect(slot.waitMs).toBe(0);
      await sql`select envdata.ensure_year_partitions('envdata.weather_hourly'::regclass, 2031, 2031)`.execute(
        wh.app.db,
      );
      expect((await migrateToLatest(wh.app.db, wh.app.logger)).applied).toEqual([]);
      expect(tried).toEqual(Object.fromEntries(Object.keys(tried).map((k) => [k, '42501'])));
    } finally {
      await bi.end();
    }
  });
});

describe('without the privilege to revoke them (a managed server)', () => {
  it('`migrate` as a role refused the lock functions says what to grant', async () => {
    const refused = await wh.app.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        const writer = `envdata_writer_${randomBytes(4).toString('hex')}`;
        await sql.raw(`create role ${writer}`).execute(conn);
        await sql.raw(`set local role ${writer}`).execute(conn);
        return await migrateToLatest(conn, wh.app.logger).then(
          () => undefined,
          (error: unknown) => error,
        );
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
    expect(refused).toMatchObject({
      code: 'MIGRATION_FAILED',
      message: expect.stringMatching(
        /may not take advisory locks in this database.*docs\/warehouse\.md, "Locks and large objects"/,
      ) as unknown,
    });
  });

  it('the migration changes nothing and fails nothing', async () => {
    const stillOpen = await wh.app.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        await sql`grant execute on function pg_catalog.pg_advisory_lock(bigint) to public`.execute(
          conn,
        );
        await sql.raw(`set local role ${APP_ROLE}`).execute(conn);
        await fenceMigration.up(conn);
        await sql`reset role`.execute(conn);
        return (await readLockFunctionFence(conn)).open;
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
    expect(stillOpen).toEqual(['pg_catalog.pg_advisory_lock(bigint)']);
  });

  it('changes nothing, fails nothing, and says which functions stay open', async () => {
    const fence = await wh.app.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        await sql`grant execute on function pg_catalog.pg_advisory_lock(bigint), pg_catalog.lo_from_bytea(oid, bytea) to public`.execute(
          conn,
        );
        await sql.raw(`set local role ${APP_ROLE}`).execute(conn);
        return await fenceLockFunctions(conn);
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
    expect(fence).toEqual({
      revoked: [],
      open: ['pg_catalog.lo_from_bytea(oid, bytea)', 'pg_catalog.pg_advisory_lock(bigint)'],
      missing: [],
      mayChange: false,
    });
  });

  it('names the lock functions a writer role that neither owns the database nor migrated lacks', async () => {
    const fence = await wh.app.db.connection().execute(async (conn) => {
      await sql`begin`.execute(conn);
      try {
        const writer = `envdata_writer_${randomBytes(4).toString('hex')}`;
        await sql.raw(`create role ${writer}`).execute(conn);
        await sql.raw(`set local role ${writer}`).execute(conn);
        return await readLockFunctionFence(conn);
      } finally {
        await sql`rollback`.execute(conn);
      }
    });
    expect(fence.open).toEqual([]);
    expect(fence.missing).toEqual(
      expect.arrayContaining([
        'pg_catalog.pg_advisory_lock(bigint)',
        'pg_catalog.pg_try_advisory_xact_lock(bigint)',
        'pg_catalog.pg_advisory_xact_lock(bigint)',
      ]),
    );
    expect(fence.missing.every((f) => /^pg_catalog\.pg_(try_)?advisory_/.test(f))).toBe(true);
  });
});

function cliEnv(): Record<string, string> {
  return { DATABASE_URL: wh.env.databaseUrl, REDIS_URL: wh.env.redisUrl, LOG_LEVEL: 'warn' };
}

const onTerminal = (args: readonly string[]) =>
  runOnTerminal(args, {
    DATABASE_URL: wh.env.databaseUrl,
    REDIS_URL: wh.env.redisUrl,
    LOG_LEVEL: 'warn',
  });

describe('envdata bi-role --password-stdin on a terminal', () => {
  it('asks for the password twice without showing it, and says the role is server-wide', async () => {
    // The same password as the rest of this file: the role is shared by the whole server.
    const run = onTerminal(['bi-role', '--password-stdin']);
    await run.waitFor('password for envdata_bi (not shown): ');
    run.type(`${PASSWORD}\r`);
    await run.waitFor('the same again: ');
    run.type(`${PASSWORD}\r`);
    expect(await run.exited).toBe(0);
    expect(run.screen()).not.toContain(PASSWORD);
    expect(run.screen()).toMatch(/log in with the password given/);
    expect(run.screen()).toMatch(/role of the whole PostgreSQL server/);
    expect(
      await loggedInAs('envdata_bi', async (c) => (await c.query('select 1 as one')).rows[0]),
    ).toEqual({ one: 1 });
  });

  it('refuses two different passwords and changes nothing', async () => {
    const run = onTerminal(['bi-role', '--password-stdin']);
    await run.waitFor('password for envdata_bi (not shown): ');
    run.type('first-password-1\r');
    await run.waitFor('the same again: ');
    run.type('other-password-2\r');
    expect(await run.exited).toBe(2);
    expect(run.screen()).toMatch(/the two passwords differ: nothing was changed/);
    expect(
      await loggedInAs('envdata_bi', async (c) => (await c.query('select 1 as one')).rows[0]),
    ).toEqual({ one: 1 });
  });
});
