import { chmod, chown, mkdir, open, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EnvdataError } from '../errors/envdata-error.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { closedAncestor } from './closed-ancestor.js';
import { ROOT_LOCAL_DIRECTORY } from './default-local-directory.js';
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
import { reachablePostgresBinaries } from './reachable-postgres-binaries.js';
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

/** A slow step `startLocalPostgres` is about to take, so that the caller can say so first. */
export interface LocalPostgresStep {
  /** `create`: `initdb` then the first start (about 15 s, once); `start`: a second or two. */
  readonly kind: 'create' | 'start';
  readonly layout: LocalPostgresLayout;
  /** The system user the server will run as when envdata runs as root; `undefined` otherwise. */
  readonly runsAs: string | undefined;
}

export interface StartLocalPostgresOptions {
  /** Called before creating or starting the server (not when it already runs). */
  readonly onStep?: (step: LocalPostgresStep) => void;
}

/**
 * Starts the local PostgreSQL in `dir`, creating the cluster on first use (`initdb`, a free
 * loopback port and a random password, remembered in the directory), and returns once it accepts
 * connections. The server runs detached: it outlives this process until `stopLocalPostgres`.
 * Idempotent: a server already running there is only checked.
 *
 * As root the programs run as the system user `envdata` (PostgreSQL refuses root), which then
 * owns the cluster and the log; the directories envdata creates are open to it (mode 0755), and
 * the PostgreSQL programs are linked into the directory when that user cannot reach them where
 * they are installed. A first start that fails removes what it made: no empty directory stays.
 * A damaged or locked directory, a port or directory the server cannot use:
 * `LOCAL_POSTGRES_FAILED` with one line naming the directory and what to do.
 */
export async function startLocalPostgres(
  dir: string,
  options: StartLocalPostgresOptions = {},
): Promise<LocalPostgres> {
  const layout = localPostgresLayout(dir);
  return inLocalDirectory(layout, () => start(layout, options));
}

async function start(
  layout: LocalPostgresLayout,
  options: StartLocalPostgresOptions,
): Promise<LocalPostgres> {
  const installed = await findPostgresBinaries();
  const user = await serverUser();
  const state = await readServerState(layout);
  let settings = await readLocalPostgresSettings(layout);
  const runsAs = user.uid === undefined ? undefined : user.name;
  const done = (action: LocalPostgres['action'], s: LocalPostgresSettings, movedFrom?: number) => ({
    layout,
    url: localDatabaseUrl(s),
    port: s.port,
    runsAs,
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

  // Checked before anything is created: a directory the server cannot reach is refused as is.
  await assertReachable(layout, user);
  const fresh = state.kind === 'not created';
  const existed = fresh ? await existing(layout) : [];
  const firstCreated = await makeDirectory(layout.dir, user);
  try {
    if (!fresh && !settings) throw missingSettings(layout);
    options.onStep?.({ kind: fresh ? 'create' : 'start', layout, runsAs });
    const binaries = await reachablePostgresBinaries(layout, installed, user);
    if (fresh) {
      settings ??= newLocalPostgresSettings(await freeLoopbackPort());
      await writeLocalPostgresSettings(layout, settings);
      await initialise(layout, binaries, user, settings);
    }
    if (!settings) throw missingSettings(layout);
    let current = settings;
    let movedFrom: number | undefined;
    if (!(await loopbackPortIsFree(current.port))) {
      movedFrom = current.port;
      current = { ...current, port: await freeLoopbackPort() };
      await writeLocalPostgresSettings(layout, current);
    }
    await startServer(layout, binaries, user, current, fresh);
    return done(fresh ? 'created' : 'started', current, movedFrom);
  } catch (error) {
    if (fresh) await removeFirstStart(layout, firstCreated, existed);
    throw error;
  }
}

/**
 * Creates `dir` and its missing parents, and returns the topmost one it created. As root they are
 * opened to the server's user (0755, whatever the umask): envdata made them, so it may; a
 * directory that already existed keeps its mode. Otherwise only their owner may enter (0700).
 */
async function makeDirectory(dir: string, user: ServerUser): Promise<string | undefined> {
  const mode = user.uid === undefined ? 0o700 : 0o755;
  const first = await mkdir(dir, { recursive: true, mode });
  if (first === undefined || user.uid === undefined) return first;
  for (let d = dir; ; d = path.dirname(d)) {
    await chmod(d, mode);
    if (d === first || d === path.dirname(d)) break;
  }
  return first;
}

/** The files of the layout that exist now, so that a failed first start removes only its own. */
async function existing(layout: LocalPostgresLayout): Promise<string[]> {
  const files = [layout.dataDir, layout.programsDir, layout.logFile, layout.settingsFile];
  const found = await Promise.all(
    files.map((f) =>
      stat(f).then(
        () => f,
        () => undefined,
      ),
    ),
  );
  return found.filter((f) => f !== undefined);
}

/**
 * Removes what a failed first start made: the directories it created, or, in a directory that
 * was there before, the files of the layout that were not (`existed` lists those that were).
 */
async function removeFirstStart(
  layout: LocalPostgresLayout,
  firstCreated: string | undefined,
  existed: readonly string[],
): Promise<void> {
  const made = firstCreated
    ? [firstCreated]
    : [layout.dataDir, layout.programsDir, layout.logFile, layout.settingsFile].filter(
        (f) => !existed.includes(f),
      );
  for (const target of made) await rm(target, { recursive: true, force: true });
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
      throw localPostgresFailed(
        layout,
        'could not be created',
        failureReason(result.output),
        undefined,
        'removed',
      );
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
  fresh: boolean,
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
  throw localPostgresFailed(
    layout,
    'did not start',
    failureReason(`${result.output}\n${log}`),
    undefined,
    fresh ? 'removed' : 'kept',
  );
}

/**
 * The server's user must be able to reach its directory (its programs are linked there when it
 * cannot reach them where they are installed: `reachablePostgresBinaries`).
 */
async function assertReachable(layout: LocalPostgresLayout, user: ServerUser): Promise<void> {
  const closed = await closedAncestor(layout.dataDir, user);
  if (closed === undefined) return;
  throw new EnvdataError(
    'LOCAL_POSTGRES_FAILED',
    `the local PostgreSQL runs as user ${user.name} (PostgreSQL refuses to run as root), which cannot reach its directory ${layout.dir}: ${closed.dir} is closed to it (mode ${closed.mode}). ` +
      `Unset ENVDATA_LOCAL_DIR (as root the default is ${ROOT_LOCAL_DIRECTORY}), set it to a directory that user can reach, or run envdata as another user than root`,
    { details: { dir: layout.dir } },
  );
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
