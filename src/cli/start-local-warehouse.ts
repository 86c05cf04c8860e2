import type { Config } from '../config/config.js';
import { loadConfig } from '../config/load-config.js';
import {
  startLocalPostgres,
  type LocalPostgres,
  type LocalPostgresStep,
} from '../local/start-local-postgres.js';
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
 * warehouse's database on it, as `envdata migrate` would (`envdata local start`). Before a slow
 * step it prints one line saying what and where; the migrations log nothing below a warning
 * unless LOG_LEVEL asks (`describePrepareOutcome` is their one line).
 */
export async function startLocalWarehouse(
  context: CommandContext,
  dir: string,
): Promise<LocalWarehouse> {
  void context.config;
  const local = await startLocalPostgres(dir, {
    onStep: (step) => context.print(describeLocalPostgresStep(step)),
  });
  const config = loadConfig(
    { LOG_LEVEL: 'warn', ...context.io.env, DATABASE_URL: local.url },
    { isTty: Boolean(context.io.stderr.isTTY) },
  );
  const prepared = await context.withApp((app) => prepareWarehouse(app), config, {
    migrated: false,
  });
  return { local, config, prepared };
}

/** One line before a slow step: what is about to happen, where, and how long it takes. */
export function describeLocalPostgresStep(step: LocalPostgresStep): string {
  // As root, where the data goes follows from who runs the server: say so with the directory.
  const runsAs =
    step.runsAs === undefined
      ? ''
      : `, run by user ${step.runsAs} since PostgreSQL refuses root, so its data is where that user can reach it`;
  return step.kind === 'create'
    ? `creating a local PostgreSQL in ${step.layout.dir} (about 15 s, once${runsAs})`
    : `starting the local PostgreSQL in ${step.layout.dir}${step.runsAs === undefined ? '' : ` (runs as user ${step.runsAs})`}`;
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
