import { chown, mkdir, open, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EnvdataError } from '../errors/envdata-error.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { closedAncestor } from './closed-ancestor.js';
import { failureReason, inLocalDirectory, localPostgresFailed } from './local-postgres-failed.js';
import { localPostgresLayout, type LocalPostgresLayout } from './local-postgres-layout.js';
import {
  LOCAL_SUPERUSER,
  localDatabaseUrl,
  newLocalPostgresSettings,
  readLocalPostgresSettings,
  writeLocalPostgresSettings,
  type LocalPostgresSettings,
} from './local-postgres-settings.js';
import { freeLoopbackPort, loopbackPortIsFree } from './free-loopback-port.js';
import { findPostgresBinaries, type PostgresBinaries } from './postgres-binaries.js';
import { readServerState } from './read-server-state.js';
import { runPostgresTool } from './run-postgres-tool.js';
import { serverUser, type ServerUser } from './server-user.js';

/**
 * Settings the server starts with. TCP on loopback only, no Unix socket (its default directory,
 * /var/run/postgresql, may not exist or may belong to another PostgreSQL).
 *
 * `synchronous_commit` off: a commit returns before its WAL reaches the disk. With the queue in
 * Postgres, BullMQ finishes a job and claims the next in one transaction, and the claim holds a
 * queue-wide lock (its rate limiter's, which envdata's worker always has) until that commit:
 * waiting for each flush lined every worker up behind the disk. In the demo that call took
 * 16.7 ms on average instead of 3.9 ms (pg_stat_statements). A crash of the machine can lose the
 * last moments of commits, never consistency: the ledger and the queue share the WAL, so what is
 * lost is lost from both, and fetched again.
 */
const SERVER_OPTIONS = [
  '-c listen_addresses=127.0.0.1',
  "-c unix_socket_directories=''",
  '-c synchronous_commit=off',
] as const;

/** How long `pg_ctl` waits for the server to accept connections (crash recovery included). */
const START_TIMEOUT_S = 120;

/** A local PostgreSQL that runs, and what `startLocalPostgres` did to get there. */
export interface LocalPostgres {
  readonly layout: LocalPostgresLayout;
  /** The warehouse's database on it (created and migrated by the caller). */
  readonly url: string;
  readonly port: number;
  /** The system user its processes run as when envdata runs as root; `undefined` otherwise. */
  readonly runsAs: string | undefined;
  readonly action: 'created' | 'started' | 'already running';
  /** The port it used to listen on when that one was taken by another program. */
  readonly movedFrom?: number;
}

/**
 * Starts the local PostgreSQL in `dir`, creating the cluster on first use (`initdb`, a free
 * loopback port and a random password, remembered in the directory), and returns once it accepts
 * connections. The server runs detached: it outlives this process until `stopLocalPostgres`.
 * Idempotent: a server already running there is only checked.
 *
 * As root the programs run as the system user `envdata` (PostgreSQL refuses root), which then
 * owns the cluster and the log. A damaged or locked directory, a port or directory the server
 * cannot use: `LOCAL_POSTGRES_FAILED` with one line naming the directory and what to do.
 */
export async function startLocalPostgres(dir: string): Promise<LocalPostgres> {
  const layout = localPostgresLayout(dir);
  return inLocalDirectory(layout, () => start(layout));
}

async function start(layout: LocalPostgresLayout): Promise<LocalPostgres> {
  const binaries = await findPostgresBinaries();
  const user = await serverUser();
  await mkdir(layout.dir, { recursive: true, mode: 0o755 });
  const state = await readServerState(layout);
  let settings = await readLocalPostgresSettings(layout);
  const done = (action: LocalPostgres['action'], s: LocalPostgresSettings, movedFrom?: number) => ({
    layout,
    url: localDatabaseUrl(s),
    port: s.port,
    runsAs: user.uid === undefined ? undefined : user.name,
    action,
    ...(movedFrom === undefined ? {} : { movedFrom }),
  });

  if (state.kind === 'running') {
    if (!settings) throw missingSettings(layout);
    const running = { ...settings, port: state.port };
    try {
      await assertDatabaseAnswers(localDatabaseUrl(running, 'postgres'));
    } catch (error) {
      throw localPostgresFailed(
        layout,
        'is locked',
        `process ${state.pid} holds its lock file (data/postmaster.pid) but no PostgreSQL of this directory answers at 127.0.0.1:${state.port}`,
        error,
      );
    }
    return done('already running', running);
  }

  await assertReachable(layout, binaries, user);
  let action: LocalPostgres['action'] = 'started';
  if (state.kind === 'not created') {
    settings ??= newLocalPostgresSettings(await freeLoopbackPort());
    await writeLocalPostgresSettings(layout, settings);
    await initialise(layout, binaries, user, settings);
    action = 'created';
  } else if (!settings) {
    throw missingSettings(layout);
  }
  let movedFrom: number | undefined;
  if (!(await loopbackPortIsFree(settings.port))) {
    movedFrom = settings.port;
    settings = { ...settings, port: await freeLoopbackPort() };
    await writeLocalPostgresSettings(layout, settings);
  }
  await startServer(layout, binaries, user, settings);
  return done(action, settings, movedFrom);
}

/** `initdb`: the cluster, its superuser with the password of `settings`, UTF-8, C collation. */
async function initialise(
  layout: LocalPostgresLayout,
  binaries: PostgresBinaries,
  user: ServerUser,
  settings: LocalPostgresSettings,
): Promise<void> {
  await mkdir(layout.dataDir, { recursive: true, mode: 0o700 });
  await ownedByServer(layout.dataDir, user);
  // initdb reads the password from a file, never from its command line (visible in `ps`).
  const passwordFile = path.join(layout.dir, '.initdb-password');
  await writeFile(passwordFile, `${settings.password}\n`, { mode: 0o600 });
  try {
    await ownedByServer(passwordFile, user);
    const result = await runPostgresTool(
      binaries.initdb,
      [
        `--pgdata=${layout.dataDir}`,
        `--username=${LOCAL_SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--no-locale',
      ],
      user,
    );
    if (result.code !== 0) {
      throw localPostgresFailed(layout, 'could not be created', failureReason(result.output));
    }
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** `pg_ctl start`, waiting until the server accepts connections; the log says why it did not. */
async function startServer(
  layout: LocalPostgresLayout,
  binaries: PostgresBinaries,
  user: ServerUser,
  settings: LocalPostgresSettings,
): Promise<void> {
  // pg_ctl opens the log as the server's user, in a directory it may not write to.
  await (await open(layout.logFile, 'a', 0o600)).close();
  await ownedByServer(layout.logFile, user);
  const logged = (await stat(layout.logFile)).size;
  const result = await runPostgresTool(
    binaries.pg_ctl,
    [
      'start',
      `--pgdata=${layout.dataDir}`,
      `--log=${layout.logFile}`,
      '--wait',
      `--timeout=${START_TIMEOUT_S}`,
      `--options=-p ${settings.port} ${SERVER_OPTIONS.join(' ')}`,
    ],
    user,
  );
  if (result.code === 0) return;
  const log = await readFrom(layout.logFile, logged);
  throw localPostgresFailed(layout, 'did not start', failureReason(`${result.output}\n${log}`));
}

/** The server's user must be able to reach its directory and its programs. */
async function assertReachable(
  layout: LocalPostgresLayout,
  binaries: PostgresBinaries,
  user: ServerUser,
): Promise<void> {
  for (const [what, target] of [
    ['its directory', layout.dataDir],
    ['the PostgreSQL programs', binaries.postgres],
  ] as const) {
    const closed = await closedAncestor(target, user);
    if (closed === undefined) continue;
    throw new EnvdataError(
      'LOCAL_POSTGRES_FAILED',
      `the local PostgreSQL runs as user ${user.name} (PostgreSQL refuses to run as root), which cannot reach ${what} at ${path.dirname(target)}: ${closed.dir} is closed to it (mode ${closed.mode}). ` +
        (what === 'its directory'
          ? 'Set ENVDATA_LOCAL_DIR to a directory it can reach (such as /var/tmp/envdata-local), or run envdata as another user than root'
          : 'Put the project in a directory other users may enter, or run envdata as another user than root'),
    );
  }
}

async function ownedByServer(file: string, user: ServerUser): Promise<void> {
  if (user.uid !== undefined && user.gid !== undefined) await chown(file, user.uid, user.gid);
}

async function readFrom(file: string, offset: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    await handle.read(buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

function missingSettings(layout: LocalPostgresLayout): EnvdataError {
  return localPostgresFailed(
    layout,
    'has no settings',
    `${layout.settingsFile} is missing, so its password is unknown`,
  );
}
