import { failureReason, inLocalDirectory, localPostgresFailed } from './local-postgres-failed.js';
import { localPostgresLayout, type LocalPostgresLayout } from './local-postgres-layout.js';
import { findPostgresBinaries } from './postgres-binaries.js';
import { reachablePostgresBinaries } from './reachable-postgres-binaries.js';
import { readServerState, type ServerState } from './read-server-state.js';
import { runPostgresTool } from './run-postgres-tool.js';
import { serverUser } from './server-user.js';

/** How long `pg_ctl stop` waits for the server to exit. */
const STOP_TIMEOUT_S = 60;

/**
 * Stops the local PostgreSQL in `dir` if it runs (`pg_ctl stop -m fast`: open sessions are ended,
 * committed data kept) and returns the state it found. Stopping one that does not run does
 * nothing; the data stays either way.
 */
export async function stopLocalPostgres(
  dir: string,
): Promise<{ layout: LocalPostgresLayout; found: ServerState }> {
  const layout = localPostgresLayout(dir);
  return inLocalDirectory(layout, async () => {
    const found = await readServerState(layout);
    if (found.kind !== 'running') return { layout, found };
    const [installed, user] = await Promise.all([findPostgresBinaries(), serverUser()]);
    const binaries = await reachablePostgresBinaries(layout, installed, user);
    const result = await runPostgresTool(
      binaries.pg_ctl,
      [
        'stop',
        `--pgdata=${layout.dataDir}`,
        '--mode=fast',
        '--wait',
        `--timeout=${STOP_TIMEOUT_S}`,
      ],
      user,
    );
    if (result.code !== 0) {
      throw localPostgresFailed(layout, 'did not stop', failureReason(result.output));
    }
    return { layout, found };
  });
}
