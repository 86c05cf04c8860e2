import path from 'node:path';

/**
 * Where one local PostgreSQL keeps its files, all under one directory (ENVDATA_LOCAL_DIR, by
 * default in the user's data directory: `defaultLocalDirectory`). Removing the directory removes
 * the server and its data.
 */
export interface LocalPostgresLayout {
  /** The directory itself, absolute. */
  readonly dir: string;
  /** The cluster (PGDATA), made by `initdb`, owned by the user the server runs as. */
  readonly dataDir: string;
  /** The server's log; the reason a start failed is read from its end. */
  readonly logFile: string;
  /** The port and password the server was created with (`LocalPostgresSettings`). */
  readonly settingsFile: string;
  /**
   * The PostgreSQL programs, linked here when the server's user cannot reach them where they
   * are installed (envdata as root, a project under a directory closed to others).
   */
  readonly programsDir: string;
}

/** The layout of a local PostgreSQL in `dir` (relative paths resolve against the current directory). */
export function localPostgresLayout(dir: string): LocalPostgresLayout {
  const absolute = path.resolve(dir);
  return {
    dir: absolute,
    dataDir: path.join(absolute, 'data'),
    logFile: path.join(absolute, 'postgres.log'),
    settingsFile: path.join(absolute, 'settings.json'),
    programsDir: path.join(absolute, 'programs'),
  };
}
