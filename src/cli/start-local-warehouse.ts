import type { Config } from '../config/config.js';
import { loadConfig } from '../config/load-config.js';
import { startLocalPostgres, type LocalPostgres } from '../local/start-local-postgres.js';
import { prepareWarehouse, type PrepareOutcome } from '../warehouse/prepare-warehouse.js';
import type { CommandContext } from './command-context.js';

export interface LocalWarehouse {
  readonly local: LocalPostgres;
  /** The environment's config with DATABASE_URL pointing at the local server. */
  readonly config: Config;
  readonly prepared: PrepareOutcome;
}

/**
 * Starts the local PostgreSQL in `dir` (creating it on first use) and creates and migrates the
 * warehouse's database on it, as `envdata migrate` would: what `envdata local start` and the
 * demo on a machine without PostgreSQL share.
 */
export async function startLocalWarehouse(
  context: CommandContext,
  dir: string,
): Promise<LocalWarehouse> {
  void context.config;
  const local = await startLocalPostgres(dir);
  const config = loadConfig(
    { ...context.io.env, DATABASE_URL: local.url },
    { isTty: Boolean(context.io.stderr.isTTY) },
  );
  const prepared = await context.withApp((app) => prepareWarehouse(app), config, {
    migrated: false,
  });
  return { local, config, prepared };
}

/** One line: what happened to the local PostgreSQL, where it listens and where its data is. */
export function describeLocalPostgres(local: LocalPostgres): string {
  const where = `on 127.0.0.1:${local.port}, data in ${local.layout.dir}`;
  const runsAs = local.runsAs === undefined ? '' : ` (runs as user ${local.runsAs})`;
  const moved =
    local.movedFrom === undefined
      ? ''
      : ` — port ${local.movedFrom} was taken by another program, so it moved`;
  const what = {
    created: 'created and started a local PostgreSQL',
    started: 'started the local PostgreSQL',
    'already running': 'the local PostgreSQL is already running',
  }[local.action];
  return `${what} ${where}${runsAs}${moved}`;
}
