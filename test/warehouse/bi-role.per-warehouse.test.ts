import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { BI_CONNECTION_LIMIT } from '../../src/warehouse/bi-role-settings.js';
import { REPO_ROOT } from '../config-files/config-files.js';
import { runShell } from '../config-files/run-shell.js';
import { ENVDATA_BIN } from '../harness/run-envdata.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTestEnvironment, type TestEnvironment } from '../harness/test-environment.js';
import { childEnvironment } from '../harness/child-environment.js';

// Two warehouses on one PostgreSQL server, as two databases of the test server.
const first = useTestEnvironment();
const second = useTestEnvironment();
const tag = randomBytes(4).toString('hex');
const FIRST_ROLE = `envdata_bi_first_${tag}`;
const SECOND_ROLE = `envdata_bi_second_${tag}`;
const THIRD_ROLE = `envdata_bi_third_${tag}`;
const ROLES = [FIRST_ROLE, SECOND_ROLE, THIRD_ROLE];

/** The roles of this file that exist (DROP OWNED BY refuses a role that does not). */
let created: string[] = [];

afterAll(async () => {
  if (created.length === 0) return;
  const roles = created.map((r) => pg.escapeIdentifier(r)).join(', ');
  // Before the databases go (their hooks run after this one): the grants in each, then the roles.
  for (const env of [first, second]) await asAdmin(env, (c) => c.query(`drop owned by ${roles}`));
  await asAdmin(first, (c) => c.query(`drop role ${roles}`));
});

function databaseOf(env: TestEnvironment): string {
  return new URL(env.databaseUrl).pathname.slice(1);
}

async function asAdmin<T>(env: TestEnvironment, body: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

async function noteCreated(): Promise<void> {
  const { rows } = await asAdmin(first, (c) =>
    c.query<{ rolname: string }>('select rolname from pg_roles where rolname = any($1)', [ROLES]),
  );
  created = rows.map((r) => r.rolname);
}

/** `envdata bi-role ARGS…` as its own process on `env`'s database, `stdin` piped in. */
async function biRole(env: TestEnvironment, args: readonly string[], stdin?: string) {
  const line = [process.execPath, ENVDATA_BIN, 'bi-role', ...args]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const result = await runShell(line, {
    cwd: REPO_ROOT,
    env: childEnvironment(env.cliEnv({ LOG_LEVEL: 'warn' })),
    ...(stdin !== undefined && { stdin }),
  });
  await noteCreated();
  return result;
}

/** What a later `bi-role` must leave as it is: the password's hash, the settings, the limit. */
async function roleState(role: string) {
  return asAdmin(first, async (c) => {
    const { rows } = await c.query<{ password: string | null; limit: number; settings: string[] }>(
      `select a.rolpassword as password, a.rolconnlimit as limit,
        array(select coalesce(d.datname, '-') || ' ' || c
          from pg_db_role_setting s left join pg_database d on d.oid = s.setdatabase,
            unnest(s.setconfig) c
          where s.setrole = a.oid order by 1) as settings
      from pg_authid a where a.rolname = $1`,
      [role],
    );
    return rows[0];
  });
}

/** Whether `role` may use schema analytics of `env`'s warehouse. */
async function readsAnalytics(env: TestEnvironment, role: string): Promise<boolean> {
  return asAdmin(env, async (c) => {
    const { rows } = await c.query<{ ok: boolean }>(
      `select has_schema_privilege($1, 'analytics', 'USAGE') as ok`,
      [role],
    );
    return rows[0]!.ok;
  });
}

describe('envdata bi-role --role: a BI role per warehouse on a shared server', () => {
  it("leaves the first warehouse's role alone when the second warehouse's role is made", async () => {
    const one = await biRole(first, ['--role', FIRST_ROLE, '--password-stdin'], 'first-password');
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(
      `role ${FIRST_ROLE} can read schema analytics of database ${databaseOf(first)}`,
    );
    expect(one.stdout).toContain(`role ${FIRST_ROLE} can log in with the password given`);
    // The first warehouse's administrator tunes its role; a bi-role on that role would undo it.
    await asAdmin(first, (c) => c.query(`alter role ${FIRST_ROLE} set statement_timeout = '5min'`));
    const before = await roleState(FIRST_ROLE);
    expect(before?.password).toMatch(/^SCRAM-SHA-256\$|^md5/);

    const two = await biRole(
      second,
      ['--role', SECOND_ROLE, '--password-stdin'],
      'second-password',
    );
    expect(two.code).toBe(0);
    expect(two.stdout).toContain(`role ${SECOND_ROLE} can log in with the password given`);
    expect(two.stdout).toContain(`reset on role ${SECOND_ROLE}:`);

    expect(await roleState(FIRST_ROLE)).toEqual(before);
    expect(before?.settings).toContain('- statement_timeout=5min');
    const secondState = await roleState(SECOND_ROLE);
    expect(secondState?.limit).toBe(BI_CONNECTION_LIMIT);
    expect(secondState?.settings).toEqual([
      '- idle_in_transaction_session_timeout=60s',
      '- statement_timeout=60s',
    ]);
    expect(secondState?.password).not.toBe(before?.password);
    // Each reads its own warehouse only.
    expect(await readsAnalytics(first, FIRST_ROLE)).toBe(true);
    expect(await readsAnalytics(second, SECOND_ROLE)).toBe(true);
    expect(await readsAnalytics(second, FIRST_ROLE)).toBe(false);
    expect(await readsAnalytics(first, SECOND_ROLE)).toBe(false);
  });

  it('says whether the role can log in, as pg_roles has it after the run', async () => {
    const env = first.cliEnv({ LOG_LEVEL: 'warn' });
    const without = await runCliInProcess(['bi-role', '--role', THIRD_ROLE], env);
    await noteCreated();
    expect(without.code).toBe(0);
    expect(without.stdout).toContain(
      `role ${THIRD_ROLE} cannot log in (no password set): give one with --password-stdin`,
    );
    // Given a login by other means (an administrator's ALTER ROLE), the message follows.
    await asAdmin(first, (c) => c.query(`alter role ${THIRD_ROLE} login`));
    const after = await runCliInProcess(['bi-role', '--role', THIRD_ROLE], env);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain(`role ${THIRD_ROLE} can log in (password unchanged)`);
    expect(after.stdout).not.toContain('cannot log in');
  });

  it('refuses a role name that is not a plain identifier, before touching the server', async () => {
    const env = first.cliEnv({ LOG_LEVEL: 'warn' });
    for (const [name, why] of [
      [`BI-${tag}`, 'is not a plain identifier'],
      [`pg_bi_${tag}`, 'starts with pg_'],
      ['public', 'is reserved'],
      [`x${'y'.repeat(63)}`, "is longer than PostgreSQL's 63 characters"],
    ] as const) {
      const run = await runCliInProcess(['bi-role', '--role', name], env);
      expect(run.code, name).toBe(2);
      expect(run.stderr, name).toContain(`--role: role name "${name}" ${why}`);
    }
    const { rows } = await asAdmin(first, (c) =>
      c.query(`select rolname from pg_roles where rolname ilike $1`, [`%bi%${tag}%`]),
    );
    expect(rows.map((r: { rolname: string }) => r.rolname).sort()).toEqual(created.sort());
  });

  it('refuses a role that is more than a reader, and changes nothing', async () => {
    const { rows } = await asAdmin(first, (c) =>
      c.query<{ me: string }>('select current_user as me'),
    );
    const me = rows[0]!.me;
    const before = await roleState(me);
    const run = await runCliInProcess(
      ['bi-role', '--role', me],
      first.cliEnv({ LOG_LEVEL: 'warn' }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`role ${me} is a superuser, not a read-only role`);
    expect(await roleState(me)).toEqual(before);
  });
});
