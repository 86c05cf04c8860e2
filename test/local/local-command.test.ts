import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/private-services.js';
import { runEnvdata, type EnvdataResult } from '../harness/run-envdata.js';

let root: string;
let closedDatabaseUrl: string;
const isRoot = process.getuid?.() === 0;
/** Each `envdata` run costs a second or two of start-up; a test here makes up to ten. */
const SLOW = 150_000;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'envdata-local-'));
  // mkdtemp makes it 0700: as root, the server runs as user envdata, which must get through.
  await chmod(root, 0o755);
  closedDatabaseUrl = `postgres://postgres@127.0.0.1:${await freePort()}/envdata`;
});

afterAll(async () => {
  // Every directory a test used: stop whatever still runs there, then remove them all.
  for (const name of ['main', 'corrupt', 'locked']) {
    await runEnvdata(['local', 'stop'], { ENVDATA_LOCAL_DIR: path.join(root, name) });
  }
  await rm(root, { recursive: true, force: true });
});

/** `envdata local …` on the local PostgreSQL in `name` under this file's directory. */
const local = (name: string, ...args: string[]) =>
  runEnvdata(['local', ...args], { ENVDATA_LOCAL_DIR: path.join(root, name) });

/** The URL of the `export DATABASE_URL=…` line. */
function exportedUrl(result: EnvdataResult): string {
  const url = /export DATABASE_URL=(\S+)/.exec(result.stdout)?.[1];
  if (url === undefined) throw new Error(`no DATABASE_URL exported:\n${result.stdout}`);
  return url;
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** One line on standard error naming the directory and what to do, exit 1, no stack trace. */
function expectOneLineFailure(result: EnvdataResult, dir: string): string {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(dir);
  expect(lines[0]).toMatch(/remove .* to start afresh/);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe('envdata local', () => {
  it(
    'start creates, migrates and leaves running a PostgreSQL that status, stop and start again agree on',
    async () => {
      const dir = path.join(root, 'main');
      expect((await local('main', 'status')).stdout).toMatch(/not created/);

      const created = await local('main', 'start');
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toContain(`created and started a local PostgreSQL`);
      expect(created.stdout).toContain(dir);
      const url = exportedUrl(created);
      const port = new URL(url).port;
      // The CLI has exited; the server it started answers, with the warehouse migrated.
      const views = await query<{ n: number }>(
        url,
        `select count(*)::int as n from information_schema.views where table_schema = 'analytics'`,
      );
      expect(views[0]!.n).toBeGreaterThan(0);

      const running = await local('main', 'status');
      expect(running.code).toBe(0);
      expect(running.stdout).toMatch(
        new RegExp(`running \\(pid \\d+\\) on 127\\.0\\.0\\.1:${port}`),
      );
      expect(exportedUrl(running)).toBe(url);

      const again = await local('main', 'start');
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/already running/);
      expect(exportedUrl(again)).toBe(url);

      const stopped = await local('main', 'stop');
      expect(stopped.code).toBe(0);
      expect(stopped.stdout).toMatch(/stopped the local PostgreSQL/);
      await expect(query(url, 'select 1')).rejects.toThrow();
      // A command pointed at it now says how to start it again, not how to start some Postgres.
      const down = await runEnvdata(['locations', 'list'], {
        DATABASE_URL: url,
        ENVDATA_QUEUE_BACKEND: 'postgres',
      });
      expect(down.code).toBe(1);
      expect(down.stderr).toContain('start it again with `envdata local start`');
      expect(down.stderr).not.toMatch(/docker|pg_ctlcluster/);
      expect(down.stderr).not.toContain(new URL(url).password);
      expect((await local('main', 'status')).stdout).toMatch(/stopped \(data in /);
      expect((await local('main', 'stop')).stdout).toMatch(/is not running/);

      // The same port and data after a restart: exported settings stay right.
      const restarted = await local('main', 'start');
      expect(restarted.code).toBe(0);
      expect(restarted.stdout).toMatch(/started the local PostgreSQL/);
      expect(exportedUrl(restarted)).toBe(url);
      const migrations = await query<{ n: number }>(
        url,
        'select count(*)::int as n from public.envdata_migration',
      );
      expect(migrations[0]!.n).toBeGreaterThan(0);
      expect((await local('main', 'stop')).code).toBe(0);
    },
    SLOW,
  );

  it(
    'a damaged data directory: one line naming it and what to do, exit 1',
    async () => {
      const dir = path.join(root, 'corrupt');
      expect((await local('corrupt', 'start')).code).toBe(0);
      expect((await local('corrupt', 'stop')).code).toBe(0);
      await writeFile(path.join(dir, 'data', 'PG_VERSION'), 'not a version\n');

      const line = expectOneLineFailure(await local('corrupt', 'start'), dir);
      expect(line).toMatch(/did not start: FATAL: .*not a valid data directory/);
      expect((await local('corrupt', 'status')).stdout).toMatch(/stopped/);
    },
    SLOW,
  );

  it(
    'a data directory locked by another process: one line naming it and how to stop it, exit 1',
    async () => {
      const dir = path.join(root, 'locked');
      expect((await local('locked', 'start')).code).toBe(0);
      expect((await local('locked', 'stop')).code).toBe(0);
      // A process of the server's user that holds the lock file, as a server left behind would.
      const data = path.join(dir, 'data');
      const owner = await stat(data);
      const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
        stdio: 'ignore',
        ...(process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {}),
      });
      try {
        await once(holder, 'spawn');
        const port = (await readFile(path.join(dir, 'settings.json'), 'utf8')).match(
          /"port": (\d+)/,
        )?.[1];
        await writeFile(
          path.join(data, 'postmaster.pid'),
          `${holder.pid}\n${data}\n0\n${port}\n\n127.0.0.1\n0 0\nready\n`,
        );

        const line = expectOneLineFailure(await local('locked', 'start'), dir);
        expect(line).toMatch(/lock file "postmaster\.pid" already exists/);
        expect(line).toContain('`envdata local stop`');
        // `stop` never signals a process that is not a PostgreSQL.
        expect((await local('locked', 'stop')).stdout).toMatch(/is not running/);
        expect(holder.exitCode).toBeNull();
      } finally {
        await stopProcess(holder);
      }
    },
    SLOW,
  );

  it("lives in the user's data directory by default, as root in /var/lib/envdata", async () => {
    const home = path.join(root, 'home');
    const env = { HOME: home, XDG_DATA_HOME: '' };
    const expected = isRoot ? '/var/lib/envdata/postgres' : `${home}/.local/share/envdata/postgres`;
    const byHome = await runEnvdata(['local', 'status'], env);
    expect(byHome.code, byHome.stderr).toBe(0);
    expect(byHome.stdout).toContain(` ${expected}`);
    const xdg = await runEnvdata(['local', 'status'], { ...env, XDG_DATA_HOME: `${root}/xdg` });
    expect(xdg.stdout).toContain(
      ` ${isRoot ? '/var/lib/envdata/postgres' : `${root}/xdg/envdata/postgres`}`,
    );
    // `status` only reads.
    await expect(stat(home)).rejects.toThrow(/ENOENT/);
  });

  it.runIf(isRoot)(
    'as root, a directory the server user cannot reach: one line saying so, nothing created',
    async () => {
      const closed = await mkdtemp(path.join(tmpdir(), 'envdata-closed-'));
      try {
        const dir = path.join(closed, 'deep', 'postgres');
        const result = await runEnvdata(['local', 'start'], { ENVDATA_LOCAL_DIR: dir });
        expect(result.code).toBe(1);
        const lines = result.stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`cannot reach its directory ${dir}: ${closed} is closed to it`);
        expect(lines[0]).toContain(
          'Unset ENVDATA_LOCAL_DIR (as root the default is /var/lib/envdata/postgres)',
        );
        await expect(stat(path.join(closed, 'deep'))).rejects.toThrow(/ENOENT/);
        expect((await stat(closed)).mode & 0o777).toBe(0o700);
      } finally {
        await rm(closed, { recursive: true, force: true });
      }
    },
  );

  it('an unknown subcommand or argument exits 2 with usage', async () => {
    const unknown = await local('main', 'restart');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'restart'/);
    expect(unknown.stderr).toMatch(/envdata local --help/);
    const extra = await local('main', 'start', 'now');
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/too many arguments/);
    expect(extra.stderr).toMatch(/envdata local start --help/);
  });

  it('production commands never fall back to it: migrate with nothing at DATABASE_URL fails as before', async () => {
    const dir = path.join(root, 'never');
    const result = await runEnvdata(['migrate'], {
      DATABASE_URL: closedDatabaseUrl,
      ENVDATA_LOCAL_DIR: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/does not answer: start Postgres/);
    await expect(stat(dir)).rejects.toThrow(/ENOENT/);
  });
});

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
