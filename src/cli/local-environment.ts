import path from 'node:path';
import type { EnvironmentVariable } from '../config/environment-variables.js';
import type { Environment } from '../config/load-config.js';

/**
 * The environment variable of `envdata local` (and of the demo, which starts the same local
 * PostgreSQL when none answers), for `localDirectoryOf` and `--help`. It belongs to the command's
 * boundary, as the simulator's do: the envdata config knows only DATABASE_URL.
 */
export const LOCAL_ENVIRONMENT_VARIABLES = [
  {
    name: 'ENVDATA_LOCAL_DIR',
    default: '.envdata/local-postgres',
    description:
      'Directory of the local PostgreSQL of `envdata local` and of `npm run demo` on a machine without one (cluster, log, port, password), relative to the current directory.',
  },
] as const satisfies readonly EnvironmentVariable[];

/** The local PostgreSQL's directory, absolute: ENVDATA_LOCAL_DIR, or the default under the current directory. */
export function localDirectoryOf(env: Environment): string {
  const set = env.ENVDATA_LOCAL_DIR?.trim();
  return path.resolve(set ? set : LOCAL_ENVIRONMENT_VARIABLES[0].default);
}
