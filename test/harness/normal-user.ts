import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export const isRoot = process.platform === 'linux' && process.getuid?.() === 0;

/** A user to run a command as, and whether this test created it (and must remove it). */
export interface NormalUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  readonly created: boolean;
}

/**
 * A user that is not root: as root, a new one of this test's own (`removeNormalUser` after), or
 * `undefined` when `useradd` cannot make one; otherwise the user running the tests.
 */
export async function normalUser(): Promise<NormalUser | undefined> {
  if (!isRoot) {
    const info = userInfo();
    return { name: info.username, uid: info.uid, gid: info.gid, created: false };
  }
  const name = `envdata-t${randomBytes(3).toString('hex')}`;
  try {
    await exec('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', name]);
    const [uid, gid] = await Promise.all([exec('id', ['-u', name]), exec('id', ['-g', name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()), created: true };
  } catch {
    return undefined;
  }
}

/** Removes a user `normalUser` created; nothing for the user running the tests. */
export async function removeNormalUser(user: NormalUser | undefined): Promise<void> {
  if (user?.created) await exec('userdel', [user.name]);
}
