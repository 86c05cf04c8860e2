import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BI_CONNECTION_LIMIT,
  BI_STATEMENT_TIMEOUT,
  ensureBiRole,
} from '../../src/warehouse/ensure-bi-role.js';
import type { Database } from '../../src/warehouse/schema.js';
import { runOnTerminal } from '../harness/run-on-terminal.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
const PASSWORD = `bi-${randomBytes(8).toString('hex')}`;
/** A role of the test that owns the test database, as the app's role would in production. */
const APP_ROLE = `envdata_app_${randomBytes(4).toString('hex')}`;
let biCouldLogIn = false;
let adminUser = '';

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
  // Logins below need one: the role is cluster-wide, so it is put back as it was after the file.
  await ensureBiRole(wh.app.db, PASSWORD);
});
afterAll(async () => {
  await sql
    .raw(
      `alter database ${pg.escapeIdentifier(databaseName())} owner to ${pg.escapeIdentifier(adminUser)}`,
    )
    .execute(wh.app.db);
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
    ]) {
      expect(await asBi(wh.app.db, `select * from analytics.${view} limit 1`), view).toBe('ok');
    }
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

  it("keeps an administrator's own statement timeout", async () => {
    await sql`alter role envdata_bi set statement_timeout = '5min'`.execute(wh.app.db);
    try {
      await ensureBiRole(wh.app.db);
      await loggedInAs('envdata_bi', async (bi) => {
        const { rows } = await bi.query<{ statement_timeout: string }>('show statement_timeout');
        expect(rows[0]!.statement_timeout).toBe('5min');
      });
    } finally {
      await sql`alter role envdata_bi set statement_timeout = '60s'`.execute(wh.app.db);
    }
  });
});

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
