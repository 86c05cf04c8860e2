import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LocalPostgresLayout } from './local-postgres-layout.js';

/** What a local PostgreSQL's directory holds now. */
export type ServerState =
  /** No cluster yet: the data directory is missing or empty. */
  | { readonly kind: 'not created' }
  /** A cluster (or what is left of one) that no server runs on. */
  | { readonly kind: 'stopped' }
  /** A PostgreSQL process holds the cluster's lock file (`postmaster.pid`). */
  | { readonly kind: 'running'; readonly pid: number; readonly port: number };

/**
 * Reads the state from the data directory alone: a cluster exists once `initdb` wrote
 * `PG_VERSION`, and runs while the process named in `postmaster.pid` lives. On Linux that process
 * must also be a `postgres` (`/proc/PID/comm`): a lock file left by a crash whose PID now belongs
 * to another program counts as stopped, so `stop` never signals that program.
 */
export async function readServerState(layout: LocalPostgresLayout): Promise<ServerState> {
  const entries = await readdir(layout.dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (entries.length === 0) return { kind: 'not created' };
  const lock = await readFile(path.join(layout.dataDir, 'postmaster.pid'), 'utf8').catch(
    () => undefined,
  );
  // postmaster.pid: PID, data directory, start time, port, socket directory, listen address, …
  const lines = lock?.split('\n') ?? [];
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !(await isPostgresProcess(pid))) {
    return { kind: 'stopped' };
  }
  return { kind: 'running', pid, port };
}

/** Whether `pid` is a live process, and on Linux a `postgres` one. */
async function isPostgresProcess(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's (the server runs as `envdata` when envdata is root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (process.platform !== 'linux') return true;
  const name = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => undefined);
  return name?.trim() === 'postgres';
}
