import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBiRoles } from '../../src/notify/check-bi-roles.js';
import { ensureBiRole } from '../../src/warehouse/ensure-bi-role.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
/** A BI role of this file's own: the role is cluster-wide, and other files lift envdata_bi's. */
const ROLE = `envdata_bi_${randomBytes(4).toString('hex')}`;
/** A role envdata could run as that may not alter roles (no CREATEROLE). */
const APP_ROLE = `envdata_app_${randomBytes(4).toString('hex')}`;
const PASSWORD = `bi-${randomBytes(8).toString('hex')}`;

beforeAll(async () => {
  // In this database envdata_bi is no BI role: the checks here touch only ROLE.
  await sql`revoke usage on schema analytics from envdata_bi`.execute(wh.app.db);
  await ensureBiRole(wh.app.db, { role: ROLE, password: PASSWORD });
  await sql.raw(`create role ${APP_ROLE} nologin`).execute(wh.app.db);
  await sql
    .raw(
      `grant usage on schema envdata to ${APP_ROLE};
       grant select, insert, update on envdata.alert_state, envdata.notification to ${APP_ROLE}`,
    )
    .execute(wh.app.db);
});
afterAll(async () => {
  await sql.raw(`drop owned by ${ROLE}, ${APP_ROLE}`).execute(wh.app.db);
  await sql.raw(`drop role if exists ${ROLE}`).execute(wh.app.db);
  await sql.raw(`drop role if exists ${APP_ROLE}`).execute(wh.app.db);
});

/** Runs `statement` on a fresh session of the BI role (its settings apply at login). */
async function asBi<T extends pg.QueryResultRow>(statement: string): Promise<T[]> {
  const url = new URL(wh.env.databaseUrl);
  url.username = ROLE;
  url.password = PASSWORD;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query<T>(statement)).rows;
  } finally {
    await client.end();
  }
}

/** The `bi-role-lifted` events in the outbox, oldest first. */
async function told(): Promise<{ key: string; details: Record<string, unknown> }[]> {
  const { rows } = await sql<{ key: string; details: Record<string, unknown> }>`
    select dedupe_key as key, details from envdata.notification
    where event = 'bi-role-lifted' order by notification_id`.execute(wh.app.db);
  return rows;
}

/** The role-wide settings of ROLE. */
async function settings(): Promise<string[]> {
  const { rows } = await sql<{ setting: string }>`
    select unnest(setconfig) as setting from pg_db_role_setting
    where setrole = ${ROLE}::regrole and setdatabase = 0 order by 1`.execute(wh.app.db);
  return rows.map((r) => r.setting);
}

describe('checkBiRoles', () => {
  it('puts back a timeout the BI role lifted for itself, and tells the operator once', async () => {
    await asBi(`alter role ${ROLE} set statement_timeout = 0`);
    expect(await settings()).toContain('statement_timeout=0');

    const first = await checkBiRoles(wh.app.db);
    const second = await checkBiRoles(wh.app.db);
    expect(first).toEqual([
      { role: ROLE, lifted: ['statement_timeout 0 → 60s'], resettable: true },
    ]);
    expect(second).toEqual([]);
    expect(await settings()).toEqual([
      'idle_in_transaction_session_timeout=60s',
      'statement_timeout=60s',
    ]);
    const shown = await asBi<{ statement_timeout: string }>('show statement_timeout');
    expect(shown).toEqual([{ statement_timeout: '1min' }]);
    expect(await told()).toEqual([
      {
        key: `bi-role:${ROLE}:reset:1`,
        details: { role: ROLE, lifted: ['statement_timeout 0 → 60s'], resettable: true },
      },
    ]);

    // Lifted again later: told again, once.
    await asBi(`alter role ${ROLE} set idle_in_transaction_session_timeout = 0`);
    await checkBiRoles(wh.app.db);
    await checkBiRoles(wh.app.db);
    expect((await told()).map((t) => t.details.lifted)).toEqual([
      ['statement_timeout 0 → 60s'],
      ['idle_in_transaction_session_timeout 0 → 60s'],
    ]);
  });

  it('run by a role that may not alter roles, tells once while the setting stays lifted', async () => {
    await asBi(`alter role ${ROLE} set statement_timeout = '2h'`);
    const check = () =>
      wh.app.db.connection().execute(async (conn) => {
        await sql.raw(`set role ${APP_ROLE}`).execute(conn);
        try {
          return await checkBiRoles(conn);
        } finally {
          await sql`reset role`.execute(conn);
        }
      });
    const lifted = ['statement_timeout 2h → 60s'];
    expect(await check()).toEqual([{ role: ROLE, lifted, resettable: false }]);
    expect(await check()).toEqual([]);
    expect(await settings()).toContain('statement_timeout=2h');
    expect((await told()).at(-1)).toEqual({
      key: `bi-role:${ROLE}:lifted:1`,
      details: {
        role: ROLE,
        lifted,
        resettable: false,
        action: `run \`envdata bi-role --role ${ROLE}\` as a superuser or a role with CREATEROLE`,
      },
    });

    // Put back (by `envdata bi-role` as an administrator), then lifted again: told again.
    await ensureBiRole(wh.app.db, { role: ROLE });
    expect(await check()).toEqual([]);
    await asBi(`alter role ${ROLE} set statement_timeout = 0`);
    expect(await check()).toEqual([
      { role: ROLE, lifted: ['statement_timeout 0 → 60s'], resettable: false },
    ]);
  });
});
