import { isEnvdataError } from '../errors/envdata-error.js';
import { SQLSTATE, errorCode } from '../errors/pg-errors.js';
import { assertDatabaseAnswers } from '../warehouse/create-database.js';
import { startLocalPostgres } from '../local/start-local-postgres.js';
import { describeRedisTarget, redisTargetOf } from '../queue/redis-target.js';
import { maskUrl } from '../warehouse/database-url.js';
import type { CommandContext } from './command-context.js';
import { localDirectoryOf } from './local-environment.js';
import { localPostgresExports, queueNeedsPostgres } from './local-postgres-exports.js';
import { describeLocalPostgres, describeLocalPostgresStep } from './start-local-warehouse.js';

/** What the demo runs on when the environment's services do not answer. */
export interface DemoServices {
  /** Variables that the demo's config takes over the environment's. */
  readonly env: Readonly<Record<string, string>>;
  /** `  export NAME=value` lines that point a shell at the same services. */
  readonly exports: readonly string[];
  /** The directory of the local PostgreSQL the demo started, when it did. */
  readonly localDir: string | undefined;
}

/**
 * The demo's fallbacks, so that `npm run demo` works on a bare machine: nothing answers at
 * DATABASE_URL → the local PostgreSQL of `envdata local` (started, or created on first use; the
 * demo migrates it); nothing answers at REDIS_URL → the queue in PostgreSQL. Each says so in one
 * line, the slow one before it starts. Only the demo falls back: every other command fails and
 * names what is down, as it must in production.
 */
export async function chooseDemoServices(context: CommandContext): Promise<DemoServices> {
  const config = context.config;
  const env: Record<string, string> = {};
  let localUrl: string | undefined;
  let localDir: string | undefined;
  if (await nothingAnswersAt(config.databaseUrl)) {
    const nothing = `nothing answers at DATABASE_URL ${maskUrl(config.databaseUrl)}`;
    let said = false;
    // Said before the slow step (creating the cluster takes about 15 s), with where its data goes.
    const local = await startLocalPostgres(localDirectoryOf(context.io.env), {
      onStep: (step) => {
        context.print(`${nothing}: ${describeLocalPostgresStep(step)}`);
        said = true;
      },
    });
    context.print(
      said ? describeLocalPostgres(local) : `${nothing}: ${describeLocalPostgres(local)}`,
    );
    env.DATABASE_URL = localUrl = local.url;
    localDir = local.layout.dir;
  }
  const queueOnPostgres = await queueNeedsPostgres(config);
  if (queueOnPostgres && config.queueBackend === 'redis') {
    context.print(
      `nothing answers at ${describeRedisTarget(redisTargetOf(config))}: the queue lives in PostgreSQL instead (ENVDATA_QUEUE_BACKEND=postgres)`,
    );
    env.ENVDATA_QUEUE_BACKEND = 'postgres';
  }
  if (Object.keys(env).length === 0) return { env, exports: [], localDir };
  // `envdata local stop` must find the same directory: a chosen one is exported with the rest.
  const chosenDir = context.io.env.ENVDATA_LOCAL_DIR?.trim() ? localDir : undefined;
  return {
    env,
    exports: [
      ...localPostgresExports({ databaseUrl: localUrl, queueOnPostgres }),
      ...(chosenDir === undefined ? [] : [`  export ENVDATA_LOCAL_DIR=${chosenDir}`]),
    ],
    localDir,
  };
}

/**
 * Whether no PostgreSQL answers at `url` at all. One that answers but refuses the login, or lacks
 * the database, is the user's server: the demo uses it (creating the database) or fails as
 * every command does.
 */
async function nothingAnswersAt(url: string): Promise<boolean> {
  try {
    await assertDatabaseAnswers(url);
    return false;
  } catch (error) {
    if (!isEnvdataError(error) || error.code !== 'DATABASE_UNAVAILABLE') throw error;
    const code = errorCode(error.cause);
    return !(
      code === SQLSTATE.invalidCatalogName ||
      code === SQLSTATE.invalidPassword ||
      code === SQLSTATE.invalidAuthorization ||
      code === SQLSTATE.cannotConnectNow
    );
  }
}
