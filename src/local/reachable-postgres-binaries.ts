import {
  chmod,
  copyFile,
  link,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { closedAncestor } from './closed-ancestor.js';
import type { LocalPostgresLayout } from './local-postgres-layout.js';
import type { PostgresBinaries } from './postgres-binaries.js';
import type { ServerUser } from './server-user.js';

/** Says which installation `programs/` holds, so that an upgraded package is linked again. */
const SOURCE_FILE = '.envdata-source.json';

/**
 * The PostgreSQL programs as the server's user can run them: where they are installed, unless
 * that user cannot reach them there (envdata as root, the package under a directory closed to
 * others such as `/root` or a `mktemp -d`). Then the installation (`bin/`, `lib/`, `share/`, 60 MB)
 * is linked into the layout's `programs/` once per version, with hard links (a copy across file
 * systems), and run from there. Nothing of the user's directories changes: their modes stay as
 * they are.
 */
export async function reachablePostgresBinaries(
  layout: LocalPostgresLayout,
  installed: PostgresBinaries,
  user: ServerUser,
): Promise<PostgresBinaries> {
  if ((await closedAncestor(installed.postgres, user)) === undefined) return installed;
  const programs = layout.programsDir;
  const source = JSON.stringify({ from: installed.root, version: installed.version });
  const linked = await readFile(path.join(programs, SOURCE_FILE), 'utf8').catch(() => undefined);
  if (linked !== source) {
    // Linked beside, then renamed into place: a `programs/` is complete or absent.
    const partial = `${programs}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    try {
      await linkTree(installed.root, partial);
      await writeFile(path.join(partial, SOURCE_FILE), source);
      await rm(programs, { recursive: true, force: true });
      await rename(partial, programs);
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }
  const program = (name: string) => path.join(programs, 'bin', name);
  return {
    initdb: program('initdb'),
    pg_ctl: program('pg_ctl'),
    postgres: program('postgres'),
    root: programs,
    version: installed.version,
  };
}

/**
 * `to` as a tree of hard links to the files of `from` (copies where a link cannot be made),
 * symbolic links as they are (the libraries' relative ones), directories open to every user.
 */
async function linkTree(from: string, to: string): Promise<void> {
  await mkdir(to, { mode: 0o755 });
  // A restrictive umask would close it again: envdata made it, so it may set its mode.
  await chmod(to, 0o755);
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) await linkTree(source, target);
    else if (entry.isSymbolicLink()) await symlink(await readlink(source), target);
    else await linkOrCopy(source, target);
  }
}

async function linkOrCopy(source: string, target: string): Promise<void> {
  try {
    await link(source, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw error;
    await copyFile(source, target);
    await chmod(target, (await stat(source)).mode & 0o777);
  }
}
