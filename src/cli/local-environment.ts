import { homedir } from 'node:os';
import path from 'node:path';
import type { EnvironmentVariable } from '../config/environment-variables.js';
import type { Environment } from '../config/load-config.js';
import { defaultLocalDirectory } from '../local/default-local-directory.js';

/**
 * The environment variable of `envdata local` (and of the demo, which starts the same local
 * PostgreSQL when none answers), for `localDirectoryOf` and `--help`. It belongs to the command's
 * boundary, as the simulator's do: the envdata config knows only DATABASE_URL.
 */
export const LOCAL_ENVIRONMENT_VARIABLES = [
  {
    name: 'ENVDATA_LOCAL_DIR',
    default: '~/.local/share/envdata/postgres',
    description:
      'Directory of the local PostgreSQL of `envdata local` and of `npm run demo` on a machine without one (cluster, log, port, password). Default: $XDG_DATA_HOME/envdata/postgres when XDG_DATA_HOME is set, else ~/.local/share/envdata/postgres; as root /var/lib/envdata/postgres (the server runs as the user envdata, which must reach it).',
  },
] as const satisfies readonly EnvironmentVariable[];

/**
 * The local PostgreSQL's directory, absolute: ENVDATA_LOCAL_DIR (relative to the current
 * directory, `~/` to HOME), or the default in the user's data directory (`defaultLocalDirectory`).
 */
export function localDirectoryOf(env: Environment): string {
  const set = env.ENVDATA_LOCAL_DIR?.trim();
  // A `~/…` copied from the default (a .env file is not read by a shell that would expand it).
  if (set?.startsWith('~/')) return path.join(env.HOME?.trim() || homedir(), set.slice(2));
  if (set) return path.resolve(set);
  return defaultLocalDirectory({
    root: process.getuid?.() === 0,
    xdgDataHome: env.XDG_DATA_HOME,
    home: env.HOME,
  });
}
