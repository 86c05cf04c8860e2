import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertRedisAnswers } from '../../src/queue/create-redis.js';
import { pollUntil } from './poll-until.js';

const run = promisify(execFile);

/**
 * A Postgres or Redis of a test's own, on its own port and data directory, that the test may
 * stop and start: outage tests never touch the shared services of the suite.
 */
export interface PrivateService {
  readonly port: number;
  /** Stops it (Postgres: `pg_ctl stop -m immediate`, a crash as far as clients can tell). */
  stop(): Promise<void>;
  /** Starts it again on the same port (Redis comes back empty: no persistence). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  remove(): Promise<void>;
}

export interface PrivatePostgres extends PrivateService {
  /** A superuser URL of database `name` (default `postgres`). */
  url(name?: string): string;
}

export interface PrivateRedis extends PrivateService {
  readonly url: string;
}

/** Where a private service listens and who may reach it. */
export interface PrivateServiceOptions {
  /** The address it listens on (default 127.0.0.1): another interface reaches other hosts. */
  readonly host?: string;
  /** The folder its temporary directory is made in (default the system's temp directory). */
  readonly parentDir?: string;
  /** Postgres only: a network (`10.213.7.0/24`) whose clients are trusted, besides loopback. */
  readonly trustNetwork?: string;
  /** Postgres only: its max_connections (default 60); small, a test can reach it. */
  readonly maxConnections?: number;
}

/** A port nobody listens on at the moment. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The newest installed PostgreSQL's binaries (Debian layout), or a clear failure. */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      'outage tests start a Postgres of their own and need its binaries in /usr/lib/postgresql/<version>/bin (apt-get install postgresql)',
    );
  }
  return join(root, versions[0]!, 'bin');
}

/**
 * Initialises and starts a throwaway Postgres cluster in a temporary directory. As root, the
 * server runs as the unprivileged `postgres` user (it refuses to run as root).
 */
export async function startPrivatePostgres(
  options: PrivateServiceOptions = {},
): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const host = options.host ?? '127.0.0.1';
  const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'envdata-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
    await chmod(dir, 0o700);
  }
  const pg = (tool: string, args: readonly string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args])
      : run(join(bin, tool), [...args]);
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  if (options.trustNetwork !== undefined) {
    await appendFile(join(data, 'pg_hba.conf'), `host all all ${options.trustNetwork} trust\n`);
  }
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    `-c listen_addresses=${host}`,
    '-c fsync=off',
    '-c shared_buffers=16MB',
    `-c max_connections=${options.maxConnections ?? 60}`,
  ].join(' ');
  const ctl = (args: readonly string[]) =>
    pg('pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', ...args]);
  await ctl(['start']);
  let running = true;
  return {
    port,
    url: (name = 'postgres') => `postgres://postgres@${host}:${port}/${name}`,
    async stop() {
      await ctl(['-m', 'immediate', 'stop']);
      running = false;
    },
    async start() {
      await ctl(['start']);
      running = true;
    },
    async remove() {
      if (running) await ctl(['-m', 'immediate', 'stop']).catch(() => undefined);
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a throwaway Redis (no persistence) on a free port. With `parentDir`, it writes its pid
 * to `redis.pid` in a directory of its own there (for a cleanup after a crash).
 */
export async function startPrivateRedis(
  options: PrivateServiceOptions = {},
): Promise<PrivateRedis> {
  const port = await freePort();
  const host = options.host ?? '127.0.0.1';
  const url = `redis://${host}:${port}`;
  const dir =
    options.parentDir === undefined
      ? undefined
      : await mkdtemp(join(options.parentDir, 'envdata-redis-'));
  let server: ReturnType<typeof spawn> | undefined;
  const start = async () => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        host,
        '--save',
        '',
        '--appendonly',
        'no',
        ...(dir === undefined ? [] : ['--pidfile', join(dir, 'redis.pid')]),
        // Off loopback, Redis refuses clients without a password unless told it is protected
        // otherwise: here, by listening only on a test's own private network.
        ...(host === '127.0.0.1' ? [] : ['--protected-mode', 'no']),
      ],
      { stdio: 'ignore' },
    );
    server = child;
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
        return assertRedisAnswers(url, 500).then(
          () => ({ done: true }),
          () => ({ last: undefined }),
        );
      },
      { timeoutMs: 10_000, everyMs: 50, describe: () => `redis-server did not answer on ${port}` },
    );
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  const remove = async () => {
    await stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  };
  return { port, url, start, stop, remove };
}
