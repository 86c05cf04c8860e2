import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';
import { EnvdataError } from '../errors/envdata-error.js';

const run = promisify(execFile);

/**
 * The system user a local PostgreSQL runs as when envdata runs as root (containers, CI):
 * PostgreSQL refuses to run as root. Created on first use, without a home or a login shell.
 */
export const SERVER_USER_NAME = 'envdata';

/** Who the local PostgreSQL's programs run as. */
export interface ServerUser {
  readonly name: string;
  /** Set when envdata runs as root: the programs are started as this user instead. */
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * The current user, or, as root, the unprivileged system user `envdata` (created with
 * `useradd --system` if missing; the files the server writes are then made its own).
 */
export async function serverUser(): Promise<ServerUser> {
  if (process.getuid?.() !== 0) return { name: userInfo().username };
  const found = await idsOf(SERVER_USER_NAME);
  if (found) return found;
  try {
    await run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      SERVER_USER_NAME,
    ]);
  } catch (error) {
    // Another envdata may have created it at the same moment: look again before giving up.
    const raced = await idsOf(SERVER_USER_NAME);
    if (raced) return raced;
    throw new EnvdataError(
      'LOCAL_POSTGRES_FAILED',
      `PostgreSQL refuses to run as root, and envdata could not create the unprivileged user ${SERVER_USER_NAME} to run it as: create one (\`useradd --system --user-group ${SERVER_USER_NAME}\`), or run envdata as another user than root`,
      { cause: error },
    );
  }
  const created = await idsOf(SERVER_USER_NAME);
  if (!created) throw new Error(`useradd succeeded but user ${SERVER_USER_NAME} is not found`);
  return created;
}

async function idsOf(name: string): Promise<ServerUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}
