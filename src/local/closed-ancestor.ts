import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ServerUser } from './server-user.js';

/**
 * The first directory above `target` (nearest first) that `user` may not enter, or `undefined`
 * when every one is open to it. Only a switched user (envdata as root) can meet one: a project
 * under `/root` (mode 0700) is closed to the `envdata` user the server runs as. A directory that
 * does not exist yet is skipped: envdata creates it open to that user.
 */
export async function closedAncestor(
  target: string,
  user: ServerUser,
): Promise<{ dir: string; mode: string } | undefined> {
  if (user.uid === undefined) return undefined;
  for (let dir = path.dirname(target); ; dir = path.dirname(dir)) {
    const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info !== undefined) {
      const bit = info.uid === user.uid ? 0o100 : info.gid === user.gid ? 0o010 : 0o001;
      if ((info.mode & bit) === 0) return { dir, mode: (info.mode & 0o777).toString(8) };
    }
    if (dir === path.dirname(dir)) return undefined;
  }
}
