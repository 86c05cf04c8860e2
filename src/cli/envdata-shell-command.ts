import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Environment } from '../config/load-config.js';

/**
 * How the user runs this envdata from the shell they started it in, for hints that must work
 * as printed: `envdata` when that name on PATH is this program (a global install, `npm link`);
 * otherwise, as in a clone where `envdata` is not a command, `node` and the path of `bin`
 * relative to the directory they typed in (`INIT_CWD` under `npm run`, which runs scripts from
 * the package's root, else the current directory).
 */
export async function envdataShellCommand(env: Environment, bin: string): Promise<string> {
  const self = await realpath(bin).catch(() => bin);
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue;
    const found = await realpath(path.join(dir, 'envdata')).catch(() => undefined);
    if (found === self) return 'envdata';
    // The first `envdata` on PATH is the one the shell runs: another one is not this program.
    if (found !== undefined) break;
  }
  const from = env.INIT_CWD ?? process.cwd();
  const relative = path.relative(from, bin);
  const shown = relative.startsWith('..') && path.isAbsolute(bin) ? bin : relative;
  return `node ${/^[\w./@+-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", "'\\''")}'`}`;
}
