import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { inLocalDirectory } from './local-postgres-failed.js';
import { localPostgresLayout, type LocalPostgresLayout } from './local-postgres-layout.js';
import {
  localDatabaseUrl,
  readLocalPostgresSettings,
  type LocalPostgresSettings,
} from './local-postgres-settings.js';
import { readServerState, type ServerState } from './read-server-state.js';

/** A local PostgreSQL as its directory describes it (`envdata local status`). */
export interface LocalPostgresStatus {
  readonly layout: LocalPostgresLayout;
  readonly state: ServerState;
  /** The PostgreSQL major version of the cluster (`PG_VERSION`), once created. */
  readonly version: string | undefined;
  /** The warehouse's URL, once created; with the port the running server listens on. */
  readonly url: string | undefined;
}

/** Reads the status of the local PostgreSQL in `dir` without changing anything. */
export async function localPostgresStatus(dir: string): Promise<LocalPostgresStatus> {
  const layout = localPostgresLayout(dir);
  return inLocalDirectory(layout, async () => {
    const state = await readServerState(layout);
    if (state.kind === 'not created') return { layout, state, version: undefined, url: undefined };
    const version = await readFile(path.join(layout.dataDir, 'PG_VERSION'), 'utf8').then(
      (v) => (/^\d+$/.test(v.trim()) ? v.trim() : undefined),
      () => undefined,
    );
    const settings = await readLocalPostgresSettings(layout);
    return { layout, state, version, url: settings && urlOf(settings, state) };
  });
}

/** The URL of the warehouse on a server with `settings`, at the port it runs on if it does. */
export function urlOf(settings: LocalPostgresSettings, state: ServerState): string {
  return localDatabaseUrl(state.kind === 'running' ? { ...settings, port: state.port } : settings);
}
